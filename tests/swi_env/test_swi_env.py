"""Discovery of the provisioned SWI-Prolog, on fake state files and fake installs."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from zpm_adapters.swi_env import (
    STATE_ENV,
    SYSTEM_STATE_FILE,
    NotProvisioned,
    SwiInstall,
    activate,
    discover,
    read_state,
    state_file_candidates,
)


def fake_install(root: Path, version: int = 90209) -> dict[str, Any]:
    """Create a fake SWI-Prolog tree under ``root``; return its state record."""
    bin_dir = root / "bin"
    home = root / "lib" / "swipl"
    lib_dir = home / "lib" / "x86_64-linux"
    for directory in (bin_dir, lib_dir):
        directory.mkdir(parents=True)
    (bin_dir / "swipl").write_text("#!/bin/sh\n")
    (lib_dir / "libswipl.so.9").write_bytes(b"\x7fELF")
    return {
        "swipl": str(bin_dir / "swipl"),
        "version": version,
        "version_text": "9.2.9",
        "swi_home_dir": str(home),
        "libswipl": str(lib_dir / "libswipl.so.9"),
    }


def write_state(path: Path, record: object) -> Path:
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return write_state(tmp_path / "zpm-swi.json", fake_install(tmp_path / "swi"))


def test_a_valid_state_file_describes_the_install(state: Path, tmp_path: Path) -> None:
    found = read_state(state)
    assert isinstance(found, SwiInstall)
    assert found.version == 90209 and found.version_text == "9.2.9"
    assert found.swipl == tmp_path / "swi" / "bin" / "swipl"
    assert found.state_file == state
    assert found.environment() == {
        "SWI_HOME_DIR": str(tmp_path / "swi" / "lib" / "swipl"),
        "LIBSWIPL_PATH": str(
            tmp_path / "swi" / "lib" / "swipl" / "lib" / "x86_64-linux" / "libswipl.so.9"
        ),
    }


def test_version_text_is_derived_when_absent(tmp_path: Path) -> None:
    record = fake_install(tmp_path / "swi", version=90112)
    del record["version_text"]
    found = read_state(write_state(tmp_path / "s.json", record))
    assert isinstance(found, SwiInstall) and found.version_text == "9.1.12"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "is not valid JSON"),
        ("[1, 2]", "does not hold a JSON object"),
        (json.dumps({"version": 90209}), "lacks swipl, swi_home_dir, libswipl"),
        (
            json.dumps({"swipl": "/x", "swi_home_dir": "/y", "libswipl": "/z", "version": "9"}),
            "lacks version",
        ),
        (
            json.dumps({"swipl": "/x", "swi_home_dir": "/y", "libswipl": "/z", "version": True}),
            "lacks version",
        ),
        (
            json.dumps({"swipl": "", "swi_home_dir": "/y", "libswipl": "/z", "version": 90209}),
            "lacks swipl",
        ),
    ],
)
def test_malformed_state_files_give_a_reason(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "s.json"
    path.write_text(content, encoding="utf-8")
    found = read_state(path)
    assert isinstance(found, NotProvisioned)
    assert expected in found.reason and str(path) in found.reason
    assert "scripts/provision-swi" in found.message()


def test_a_missing_state_file_is_not_provisioned(tmp_path: Path) -> None:
    found = read_state(tmp_path / "absent.json")
    assert found == NotProvisioned(f"no SWI-Prolog state file at {tmp_path / 'absent.json'}")


def test_a_version_without_janus_is_refused(tmp_path: Path) -> None:
    record = fake_install(tmp_path / "swi", version=90004)
    record["version_text"] = "9.0.4"
    found = read_state(write_state(tmp_path / "s.json", record))
    assert isinstance(found, NotProvisioned)
    assert "SWI-Prolog 9.0.4" in found.reason and "older than 9.1.12" in found.reason


@pytest.mark.parametrize(
    ("remove", "label"),
    [("bin/swipl", "swipl"), ("lib/swipl/lib/x86_64-linux/libswipl.so.9", "libswipl")],
)
def test_a_vanished_install_is_not_provisioned(tmp_path: Path, remove: str, label: str) -> None:
    state = write_state(tmp_path / "s.json", fake_install(tmp_path / "swi"))
    (tmp_path / "swi" / remove).unlink()
    found = read_state(state)
    assert isinstance(found, NotProvisioned)
    assert found.reason.startswith(f"{label} {tmp_path / 'swi' / remove} named in")


def test_a_home_that_is_not_a_directory_is_refused(tmp_path: Path) -> None:
    record = fake_install(tmp_path / "swi")
    record["swi_home_dir"] = record["swipl"]
    found = read_state(write_state(tmp_path / "s.json", record))
    assert isinstance(found, NotProvisioned) and found.reason.startswith("SWI_HOME_DIR ")


def test_candidates_prefer_the_venv_then_the_machine(tmp_path: Path) -> None:
    assert state_file_candidates({}, str(tmp_path)) == [
        tmp_path / "zpm-swi.json",
        SYSTEM_STATE_FILE,
    ]


def test_the_state_variable_is_the_only_candidate(tmp_path: Path) -> None:
    env = {STATE_ENV: str(tmp_path / "mine.json")}
    assert state_file_candidates(env, "/ignored") == [tmp_path / "mine.json"]


def test_discover_takes_the_first_valid_file(state: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    found = discover([tmp_path / "absent.json", bad, state])
    assert isinstance(found, SwiInstall) and found.state_file == state


def test_discover_joins_every_reason(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[]", encoding="utf-8")
    found = discover([tmp_path / "absent.json", bad])
    assert isinstance(found, NotProvisioned)
    assert found.reason == (
        f"SWI-Prolog is not provisioned: no SWI-Prolog state file at {tmp_path / 'absent.json'}"
        f"; {bad} does not hold a JSON object"
    )


def test_discover_reads_the_state_variable(state: Path) -> None:
    found = discover(environ={STATE_ENV: str(state)})
    assert isinstance(found, SwiInstall) and found.state_file == state


def test_discover_with_no_candidates() -> None:
    assert discover([]) == NotProvisioned("no SWI-Prolog state file to look at")


def test_activate_sets_the_binding_environment(state: Path, tmp_path: Path) -> None:
    bin_dir = str(tmp_path / "swi" / "bin")
    env = {"PATH": os.pathsep.join(["/usr/bin", bin_dir, "/bin"]), "SWI_HOME_DIR": "/usr/lib/x"}
    found = activate(state, environ=env, loaded_modules={})
    assert isinstance(found, SwiInstall)
    assert env["SWI_HOME_DIR"] == str(found.home)
    assert env["LIBSWIPL_PATH"] == str(found.libswipl)
    assert env["PATH"] == os.pathsep.join([bin_dir, "/usr/bin", "/bin"])


def test_activate_without_a_state_file_changes_nothing(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin", STATE_ENV: str(tmp_path / "absent.json")}
    found = activate(environ=env, loaded_modules={})
    assert isinstance(found, NotProvisioned)
    assert env == {"PATH": "/usr/bin", STATE_ENV: str(tmp_path / "absent.json")}


def test_activate_after_a_binding_was_imported_is_refused(state: Path) -> None:
    env = {"PATH": "/usr/bin"}
    found = activate(state, environ=env, loaded_modules={"pyswip": object()})
    assert found == NotProvisioned(
        "pyswip was imported before the SWI-Prolog environment was set",
        "call zpm_adapters.swi_env.activate() before importing a SWI binding",
    )
    assert env == {"PATH": "/usr/bin"}


def test_activate_again_after_import_is_fine_when_already_set(state: Path) -> None:
    env: dict[str, str] = {}
    first = activate(state, environ=env, loaded_modules={})
    assert isinstance(first, SwiInstall)
    again = activate(state, environ=env, loaded_modules={"janus_swi": object()})
    assert again == first


@pytest.mark.parametrize(("loaded", "binding"), [("janus_swi", "pyswip"), ("pyswip", "janus_swi")])
def test_a_second_binding_in_one_process_is_refused(state: Path, loaded: str, binding: str) -> None:
    env: dict[str, str] = {}
    first = activate(state, environ=env, loaded_modules={})
    assert isinstance(first, SwiInstall)
    second = activate(state, environ=env, loaded_modules={loaded: object()}, binding=binding)
    assert isinstance(second, NotProvisioned)
    assert second.reason == (
        f"{loaded} already runs SWI-Prolog in this process, so {binding} cannot load it"
    )
    assert second.fix == "use one SWI engine per process (janus or pyswip, not both)"
    same = activate(state, environ=env, loaded_modules={binding: object()}, binding=binding)
    assert isinstance(same, SwiInstall)
