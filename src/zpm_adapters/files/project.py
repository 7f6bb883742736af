"""The project directory: where ``.zpm/`` is, what it holds, how it is created.

Layout (default memory)::

    <root>/.zpm/
        .gitignore       what a checkout commits (see GITIGNORE)
        config.toml      optional settings
        mounts.json      mount manifest
        kb/              knowledge files (*.pl), and the other memories' folders
        data/            journal.wal, journal.lock, rotation archives
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("zpm")

ZPM_DIR = ".zpm"
SNAPSHOT_HEADER = b"%% zpm snapshot"

GITIGNORE = """\
# zpm .gitignore, version 2: written by zpm, which keeps it up to date as long
# as it is exactly what zpm wrote. Edit it and zpm leaves it as it is.
#
# A project commits what people write and review: the knowledge files
# (kb/*.pl for the default memory, kb/<memory>/knowledge.pl for the others)
# and config.toml. Everything else here is the state of this one checkout:
# journals, snapshots (each the base that its journal names), locks, memory
# ids, the mount manifest, forks, temporary and quarantine files. They make
# sense only together and change with every tool call, so none is committed.
# Share what a memory learned by writing it into a knowledge file.
*
!/.gitignore
!/config.toml
!/kb/
!/kb/*.pl
!/kb/*/
!/kb/*/knowledge.pl
/kb/default/
/kb/.*/
"""
"""The ``.gitignore`` that ``zpm init`` writes into ``.zpm/``."""

EARLIER_GITIGNORES = ("data/\n",)
"""The ``.gitignore`` texts earlier zpm versions wrote: replaced by
:data:`GITIGNORE` at the next start (any other text is the user's)."""

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
    (paths.zpm_dir / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    return True, INITIALIZED


def ensure_layout(paths: ProjectPaths) -> None:
    """Create ``kb/`` and ``data/`` when missing (``.zpm/`` too), and bring a
    ``.gitignore`` an earlier zpm wrote up to date; idempotent."""
    paths.kb_dir.mkdir(parents=True, exist_ok=True)
    paths.data_dir.mkdir(parents=True, exist_ok=True)
    update_gitignore(paths)


def update_gitignore(paths: ProjectPaths) -> bool:
    """Replace ``.zpm/.gitignore`` by :data:`GITIGNORE` when it is one that an
    earlier zpm wrote, word for word; returns whether it did.

    A file the user changed (or removed) is left alone.  The new text is
    written to a temporary file and renamed over the old one; a failure is
    logged, not raised (the project opens all the same).
    """
    from zpm_adapters.files.durable import write_atomically  # keeps config imports light

    target = paths.zpm_dir / ".gitignore"
    try:
        if target.read_text(encoding="utf-8") not in EARLIER_GITIGNORES:
            return False
        staged = paths.zpm_dir / f".gitignore.tmp-{os.getpid()}"
        write_atomically(staged, target, GITIGNORE.encode("utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        if not isinstance(error, FileNotFoundError):
            log.info("left %s as it is: %s", target, error)
        return False
    log.info("updated %s: journals, snapshots and the rest of the state stay out of git", target)
    return True


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
