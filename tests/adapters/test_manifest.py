"""The mount manifest ``.zpm/mounts.json``: its format, damaged files, atomic writes."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.disk_faults import full_disk
from zpm_adapters.files.file_storage import FileRegistry
from zpm_adapters.files.project import ProjectPaths, init_project
from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.ports.storage import MountEntry

NOW = 1764457000.9
DEFAULT_RW = MountEntry(DEFAULT_MEMORY, "project", "rw")
SHARED_RO = MountEntry("shared", "global", "ro")
NOTES_RW = MountEntry("notes", "project", "rw")


@pytest.fixture
def paths(tmp_path: Path) -> ProjectPaths:
    (tmp_path / "project").mkdir()
    init_project(tmp_path / "project")
    return ProjectPaths.for_root(tmp_path / "project")


@pytest.fixture
def global_root(tmp_path: Path) -> Path:
    return tmp_path / "global"


@pytest.fixture
def registry(paths: ProjectPaths, global_root: Path) -> FileRegistry:
    return FileRegistry(paths, global_root, clock=lambda: NOW)


def manifest_text(mounts: list[dict[str, str]]) -> str:
    return json.dumps({"version": 1, "mounts": mounts}) + "\n"


# -- the format ---------------------------------------------------------------


def test_the_manifest_is_indented_json_with_project_paths_relative_and_global_absolute(
    paths: ProjectPaths, registry: FileRegistry, global_root: Path
) -> None:
    registry.write_manifest([DEFAULT_RW, SHARED_RO, NOTES_RW])
    assert paths.mounts_path.read_text(encoding="utf-8") == (
        "{\n"
        '  "version": 1,\n'
        '  "mounts": [\n'
        "    {\n"
        '      "name": "default",\n'
        '      "path": ".zpm/kb/default",\n'
        '      "scope": "project",\n'
        '      "mode": "rw"\n'
        "    },\n"
        "    {\n"
        '      "name": "shared",\n'
        f'      "path": "{global_root / "shared"}",\n'
        '      "scope": "global",\n'
        '      "mode": "ro"\n'
        "    },\n"
        "    {\n"
        '      "name": "notes",\n'
        '      "path": ".zpm/kb/notes",\n'
        '      "scope": "project",\n'
        '      "mode": "rw"\n'
        "    }\n"
        "  ]\n"
        "}\n"
    )


def test_entries_read_back_in_the_order_written(registry: FileRegistry) -> None:
    entries = [DEFAULT_RW, MountEntry("zeta", "project", "ro"), SHARED_RO, NOTES_RW]
    registry.write_manifest(entries)
    assert registry.read_manifest() == entries


def test_a_rewrite_replaces_the_whole_manifest(registry: FileRegistry) -> None:
    registry.write_manifest([DEFAULT_RW, SHARED_RO, NOTES_RW])
    registry.write_manifest([DEFAULT_RW])
    assert registry.read_manifest() == [DEFAULT_RW]


def test_memories_are_found_by_name_and_scope_not_by_the_recorded_path(
    paths: ProjectPaths, registry: FileRegistry
) -> None:
    """A manifest edited by hand, compact, with a stale path and an extra key, still reads."""
    paths.mounts_path.write_text(
        manifest_text(
            [
                {"name": "default", "path": "elsewhere", "scope": "project", "mode": "rw"},
                {"name": "notes", "path": "/moved", "scope": "project", "mode": "ro", "x": "1"},
            ]
        )
    )
    assert registry.read_manifest() == [DEFAULT_RW, MountEntry("notes", "project", "ro")]


def test_a_manifest_of_exactly_one_mib_reads(paths: ProjectPaths, registry: FileRegistry) -> None:
    text = manifest_text([{"name": "default", "path": "", "scope": "project", "mode": "rw"}])
    paths.mounts_path.write_text(text.ljust((1 << 20) - 1) + "\n")
    assert paths.mounts_path.stat().st_size == 1 << 20
    assert registry.read_manifest() == [DEFAULT_RW]


# -- damaged manifests --------------------------------------------------------


def entry(**changes: Any) -> bytes:
    """A one-entry manifest whose entry differs from a good one by ``changes``
    (a value of ``None`` removes the field)."""
    good: dict[str, Any] = {"name": "notes", "path": ".zpm/kb/notes", "scope": "project"}
    good["mode"] = "rw"
    fields = {k: v for k, v in {**good, **changes}.items() if v is not None}
    return json.dumps({"version": 1, "mounts": [fields]}).encode()


EMPTY_MANIFEST = json.dumps({"version": 1, "mounts": []})

DAMAGED = {
    "empty file": b"",
    "not JSON": b'{"version": 1, "mounts": [',
    "not UTF-8": entry(name="caf").replace(b'"caf"', b'"caf\xe9"'),
    "nested too deep": b"[" * 100_000 + b"]" * 100_000,
    "over 1 MiB": EMPTY_MANIFEST.ljust(1 << 20).encode() + b"\n",
    "a list": b"[]",
    "version 2": b'{"version": 2, "mounts": []}',
    "version as text": b'{"version": "1", "mounts": []}',
    "version true": b'{"version": true, "mounts": []}',
    "no version": b'{"mounts": []}',
    "no mounts": b'{"version": 1}',
    "mounts an object": b'{"version": 1, "mounts": {}}',
    "mount not an object": b'{"version": 1, "mounts": ["notes"]}',
    "no name": entry(name=None),
    "name a number": entry(name=5),
    "name empty": entry(name=""),
    "name with a dash": entry(name="my-notes"),
    "name capitalised": entry(name="Notes"),
    "name too long": entry(name="n" * 129),
    "name __all__": entry(name="__all__"),
    "name system": entry(name="system"),
    "name user": entry(name="user"),
    "name prolog": entry(name="prolog"),
    "no scope": entry(scope=None),
    "scope local": entry(scope="local"),
    "no mode": entry(mode=None),
    "mode RW": entry(mode="RW"),
    "mode read-only": entry(mode="read-only"),
}


def test_the_entry_the_damaged_ones_are_made_from_reads(
    paths: ProjectPaths, registry: FileRegistry
) -> None:
    paths.mounts_path.write_bytes(entry())
    assert registry.read_manifest() == [MountEntry("notes", "project", "rw")]


@pytest.mark.parametrize("data", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_manifest_is_moved_aside_with_a_warning(
    paths: ProjectPaths, registry: FileRegistry, caplog: pytest.LogCaptureFixture, data: bytes
) -> None:
    paths.mounts_path.write_bytes(data)
    aside = paths.zpm_dir / "mounts.json.corrupt-1764457000"
    with caplog.at_level(logging.WARNING, logger="zpm"):
        assert registry.read_manifest() is None
    assert not paths.mounts_path.exists()
    assert aside.read_bytes() == data
    [warning] = [r for r in caplog.records if r.name == "zpm"]
    assert warning.levelno == logging.WARNING
    assert str(paths.mounts_path) in warning.getMessage()
    assert str(aside) in warning.getMessage()


def test_after_a_damaged_manifest_there_is_none_until_the_next_write(
    paths: ProjectPaths, registry: FileRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    paths.mounts_path.write_bytes(b"{not json")
    assert registry.read_manifest() is None
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="zpm"):
        assert registry.read_manifest() is None
    assert caplog.records == []
    registry.write_manifest([DEFAULT_RW])
    assert registry.read_manifest() == [DEFAULT_RW]
    assert (paths.zpm_dir / "mounts.json.corrupt-1764457000").read_bytes() == b"{not json"


# -- atomic writes ------------------------------------------------------------


def zpm_files(paths: ProjectPaths) -> list[str]:
    return sorted(os.listdir(paths.zpm_dir))


def test_a_write_leaves_no_temporary_file(paths: ProjectPaths, registry: FileRegistry) -> None:
    registry.write_manifest([DEFAULT_RW])
    registry.write_manifest([DEFAULT_RW, NOTES_RW])
    assert zpm_files(paths) == [".gitignore", "data", "kb", "mounts.json"]


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_a_failed_write_keeps_the_old_manifest_and_no_temporary_file(
    paths: ProjectPaths, registry: FileRegistry, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    registry.write_manifest([DEFAULT_RW])
    broken = full_disk(failing)
    with monkeypatch.context() as patch:
        patch.setattr(os, failing, broken)
        with pytest.raises(OSError, match="No space left"):
            registry.write_manifest([DEFAULT_RW, SHARED_RO, NOTES_RW])
    assert registry.read_manifest() == [DEFAULT_RW]
    assert zpm_files(paths) == [".gitignore", "data", "kb", "mounts.json"]
