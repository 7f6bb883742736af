"""``zpm forks`` works through the forks' service the command line is given."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from zpm_app.cli import main
from zpm_app.cli.wiring import Services
from zpm_domain.errors import ZpmError
from zpm_domain.forks.review import ForkRow


@dataclass
class ListedForks:
    """A forks' service over a list of rows: pruning deletes the rows that may go."""

    forks: list[ForkRow]
    closed: int = 0
    asked: list[tuple[float | None, bool]] = field(default_factory=list)

    def rows(
        self, older_than: float | None, now: float, *, include_unmerged: bool
    ) -> list[ForkRow]:
        self.asked.append((older_than, include_unmerged))
        return [row if row.waiting == 0 or include_unmerged else _kept(row) for row in self.forks]

    def diff(self, name: str) -> dict[str, Any]:
        if name not in {row.name for row in self.forks}:
            raise ZpmError(f"Memory not found: {name}")
        return {"fork": name, "base": "default", "changes": [], "conflicts": []}

    def prune(self, rows: list[ForkRow]) -> None:
        gone = {row.name for row in rows if row.kept is None}
        self.forks = [row for row in self.forks if row.name not in gone]

    def close(self) -> None:
        self.closed += 1


def _kept(row: ForkRow) -> ForkRow:
    return ForkRow(row.name, row.base, row.changed, row.waiting, kept="it has changes")


def _services(forks: ListedForks | None) -> Services:
    def nothing(project: str | None, engine: str | None) -> Any:
        raise AssertionError("zpm forks opens no tool runner")

    def init(directory: Path) -> tuple[bool, str]:
        return True, ""

    opener = None if forks is None else (lambda project, engine: forks)
    return Services(nothing, init, LookupError, open_forks=opener)


def test_forks_list_shows_the_rows_of_the_service(capsys: pytest.CaptureFixture[str]) -> None:
    forks = ListedForks([ForkRow("trial", "default", 0.0, 2), ForkRow("done", "default", 0.0, 0)])
    assert main(["forks", "list", "--format", "json"], services=_services(forks)) == 0
    listed = json.loads(capsys.readouterr().out)["forks"]
    assert [(f["name"], f["changes"], f["merged"]) for f in listed] == [
        ("trial", 2, False),
        ("done", 0, True),
    ]
    assert forks.asked == [(None, True)] and forks.closed == 1


def test_forks_prune_deletes_through_the_service(capsys: pytest.CaptureFixture[str]) -> None:
    forks = ListedForks([ForkRow("trial", "default", 0.0, 2), ForkRow("done", "default", 0.0, 0)])
    assert main(["forks", "prune", "--older-than", "0"], services=_services(forks)) == 0
    assert [row.name for row in forks.forks] == ["trial"]
    assert "removed done" in capsys.readouterr().out


def test_forks_diff_reports_the_services_error(capsys: pytest.CaptureFixture[str]) -> None:
    forks = ListedForks([])
    assert main(["forks", "diff", "nowhere"], services=_services(forks)) == 1
    assert "zpm forks diff: Memory not found: nowhere" in capsys.readouterr().err
    assert forks.closed == 1


def test_without_a_forks_service_the_command_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["forks", "list"], services=_services(None)) == 1
    assert "cannot reach the project's forks" in capsys.readouterr().err
