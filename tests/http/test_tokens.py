"""``zpm tokens``: tokens made once, kept as digests in ``.zpm/tokens.json``."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path

import pytest

from zpm_adapters.files.file_tokens import FileTokens
from zpm_app.bootstrap.config import init_project
from zpm_app.cli import main
from zpm_app.services.bearer_tokens import access_of, fork_name
from zpm_domain.memory.access import Access
from zpm_domain.ports.tokens import TokenExists, TokenRecord


@pytest.fixture
def project(tmp_path: Path) -> Path:
    init_project(tmp_path)
    return tmp_path


def zpm(project: Path, *args: str) -> int:
    return main([*args, "--project", str(project)])


def test_create_prints_the_token_once_and_keeps_only_its_digest(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert zpm(project, "tokens", "create", "alice", "--memory", "notes", "--read-only") == 0
    token = capsys.readouterr().out.strip()
    assert token.startswith("zpm_") and len(token) > 40
    path = project / ".zpm" / "tokens.json"
    text = path.read_text()
    assert token not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    [record] = json.loads(text)["tokens"]
    assert record["digest"] == hashlib.sha256(token.encode()).hexdigest()
    assert (record["name"], record["read_only"], record["memories"]) == ("alice", True, ["notes"])


def test_list_shows_names_and_scopes_never_tokens(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    zpm(project, "tokens", "create", "alice")
    zpm(project, "tokens", "create", "bob", "--fork")
    made = capsys.readouterr().out.split()
    assert zpm(project, "tokens", "list") == 0
    out = capsys.readouterr().out
    assert out.startswith("alice  read-write; every memory  created ")
    assert "bob  read-write; every memory; in fork token_bob  created" in out
    assert "never used" in out
    assert all(token not in out for token in made)


def test_duplicate_names_are_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert zpm(project, "tokens", "create", "alice") == 0
    assert zpm(project, "tokens", "create", "alice") == 1
    assert "a token named alice exists already" in capsys.readouterr().err
    assert len(FileTokens(project / ".zpm").list()) == 1


def test_revoke(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    zpm(project, "tokens", "create", "alice")
    assert zpm(project, "tokens", "revoke", "alice") == 0
    assert zpm(project, "tokens", "revoke", "alice") == 1
    assert "no token named alice" in capsys.readouterr().err
    assert FileTokens(project / ".zpm").list() == []


@pytest.mark.parametrize(
    "args", [["bad name"], ["x", "--fork", "--read-only"], ["x", "--memory", "Not-A-Memory"]]
)
def test_bad_requests_are_refused(project: Path, args: list[str]) -> None:
    assert zpm(project, "tokens", "create", *args) == 1
    assert not (project / ".zpm" / "tokens.json").exists()


def test_the_store_finds_by_digest_and_records_use(tmp_path: Path) -> None:
    store = FileTokens(tmp_path)
    store.add(TokenRecord("a", "aa" * 32, created=1.0))
    store.add(TokenRecord("b", "bb" * 32, created=2.0))
    with pytest.raises(TokenExists):
        store.add(TokenRecord("a", "cc" * 32))
    assert store.find("bb" * 32) == TokenRecord("b", "bb" * 32, created=2.0)
    assert store.find("cc" * 32) is None
    store.touch("b", 5.0)
    store.touch("gone", 6.0)
    assert [r.last_used for r in FileTokens(tmp_path).list()] == [None, 5.0]


def test_what_a_token_reaches() -> None:
    plain = TokenRecord("a.b", "d")
    assert access_of(plain) == Access()
    limited = TokenRecord("x", "d", read_only=True, memories=("m", "n"))
    assert access_of(limited) == Access(frozenset({"m", "n"}), True)
    forked = TokenRecord("a.b", "d", fork=True)
    assert fork_name(forked) == "token_a_b"
    assert access_of(forked) == Access(home="token_a_b")


def test_a_damaged_token_file_is_reported(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".zpm" / "tokens.json").write_text("{not json")
    assert zpm(project, "tokens", "list") == 1
    assert "tokens.json: not a zpm token file" in capsys.readouterr().err
