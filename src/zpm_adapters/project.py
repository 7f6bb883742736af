"""The project directory: where ``.zpm/`` is, what it holds, how it is created.

Layout (default memory)::

    <root>/.zpm/
        .gitignore       "data/\\n"
        config.toml      optional settings
        mounts.json      mount manifest
        kb/              knowledge files (*.pl) and snapshots
        data/            journal.wal, journal.lock, rotation archives
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

ZPM_DIR = ".zpm"
SNAPSHOT_HEADER = b"%% zpm snapshot"

INITIALIZED = "Initialized .zpm/ project directory"
ALREADY_INITIALIZED = ".zpm/ project directory already initialized"


@dataclass(frozen=True, slots=True)
class ProjectPaths:
    """Every path of one project, derived from its root."""

    root: Path
    zpm_dir: Path
    kb_dir: Path
    data_dir: Path
    wal_path: Path
    lock_path: Path
    config_path: Path
    mounts_path: Path

    @classmethod
    def for_root(cls, root: Path) -> ProjectPaths:
        """Paths of the project at ``root`` (made absolute; nothing is checked)."""
        root = Path(os.path.abspath(root))
        zpm = root / ZPM_DIR
        data = zpm / "data"
        return cls(
            root=root,
            zpm_dir=zpm,
            kb_dir=zpm / "kb",
            data_dir=data,
            wal_path=data / "journal.wal",
            lock_path=data / "journal.lock",
            config_path=zpm / "config.toml",
            mounts_path=zpm / "mounts.json",
        )


def find_project(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` that contains ``.zpm/``.

    ``start`` is resolved (symlinks followed) first.  The walk stops with
    ``None`` after ``/`` or before entering a parent that lies on another
    filesystem than ``start``; also when ``start`` does not exist.
    """
    try:
        current = Path(start).resolve()
        device = current.stat().st_dev
    except OSError:
        return None
    while True:
        if (current / ZPM_DIR).is_dir():
            return current
        parent = current.parent
        if parent == current:
            return None
        try:
            if parent.stat().st_dev != device:
                return None
        except OSError:
            return None
        current = parent


def init_project(directory: Path) -> tuple[bool, str]:
    """Create ``.zpm/`` in ``directory`` (no upward search).

    Returns ``(True, INITIALIZED)`` after creating ``.zpm/``, ``.zpm/kb/``,
    ``.zpm/data/`` and ``.zpm/.gitignore``; ``(False, ALREADY_INITIALIZED)``
    when ``.zpm`` already exists, in which case nothing is touched (missing
    subdirectories are not repaired).  Filesystem errors raise ``OSError``.
    """
    zpm = Path(directory) / ZPM_DIR
    if os.path.lexists(zpm):
        return False, ALREADY_INITIALIZED
    paths = ProjectPaths.for_root(Path(directory))
    paths.zpm_dir.mkdir()
    paths.kb_dir.mkdir()
    paths.data_dir.mkdir()
    (paths.zpm_dir / ".gitignore").write_text("data/\n", encoding="utf-8")
    return True, INITIALIZED


def ensure_layout(paths: ProjectPaths) -> None:
    """Create ``kb/`` and ``data/`` when missing (``.zpm/`` too); idempotent."""
    paths.kb_dir.mkdir(parents=True, exist_ok=True)
    paths.data_dir.mkdir(parents=True, exist_ok=True)


def knowledge_files(paths: ProjectPaths) -> list[Path]:
    """The knowledge files of the default memory, sorted by file name.

    Regular files (or links to them) named ``*.pl`` directly in ``kb/``,
    except snapshots: files whose first line starts with ``%% zpm
    snapshot``.  A file that cannot be read is kept, so that loading it
    reports the error.  A missing ``kb/`` gives ``[]``.
    """
    try:
        entries = list(os.scandir(paths.kb_dir))
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for entry in entries:
        if not entry.name.endswith(".pl"):
            continue
        try:
            if not entry.is_file():
                continue
        except OSError:
            continue
        path = Path(entry.path)
        if not is_snapshot_file(path):
            found.append(path)
    found.sort(key=lambda p: p.name)
    return found


def is_snapshot_file(path: Path) -> bool:
    """Whether ``path`` starts with the snapshot header (``False`` if unreadable)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SNAPSHOT_HEADER))
    except OSError:
        return False
    return head == SNAPSHOT_HEADER
