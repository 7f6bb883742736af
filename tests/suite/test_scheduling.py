"""The suite's longest files reach the workers first."""

from __future__ import annotations

from pathlib import Path

from tests.scheduling import LONGEST_FIRST, scheduled

ROOT = Path(__file__).resolve().parents[2]


def test_every_file_named_exists_once() -> None:
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    missing = [path for path in LONGEST_FIRST if not (ROOT / path).is_file()]
    assert not missing, f"tests/scheduling.py names files that are gone: {missing}"


def test_the_named_files_come_first_in_their_order_and_the_rest_keep_theirs() -> None:
    nodeids = [
        "tests/adapters/test_a.py::test_one",
        f"{LONGEST_FIRST[1]}::test_x",
        "tests/web/test_z.py::test_two",
        f"{LONGEST_FIRST[0]}::TestC::test_y[python]",
        "tests/adapters/test_a.py::test_three",
    ]
    assert sorted(nodeids, key=scheduled) == [
        f"{LONGEST_FIRST[0]}::TestC::test_y[python]",
        f"{LONGEST_FIRST[1]}::test_x",
        "tests/adapters/test_a.py::test_one",
        "tests/web/test_z.py::test_two",
        "tests/adapters/test_a.py::test_three",
    ]
