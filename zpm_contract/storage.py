"""Where the servers under test keep their memories: files, or PostgreSQL.

A target's ``storage`` is ``file`` (each project's ``.zpm/``, the default)
or ``postgres``: each project is then a space of one database, named after
the project's folder, and its global memories a space named after the
server's ``XDG_DATA_HOME``, so that servers on the same project share a
space exactly as they would share its folder.  The database is the one
``--zpm-storage-url`` names (:func:`configure`) or, when none is given, a
throw-away cluster started on first use in this process
(``zpm_contract.pg_cluster``) and stopped by :func:`stop`.

Before a ``postgres`` server starts, the project's knowledge files are
pushed into its space (what ``zpm kb push`` does), since a server of a space
never reads them from its own disk.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from pathlib import Path

FILE = "file"
POSTGRES = "postgres"
STORAGES = (FILE, POSTGRES)

_lock = threading.Lock()
_url: str | None = None
_cluster: object | None = None


def configure(url: str | None) -> None:
    """Use the database at ``url`` (``None``: a throw-away cluster when needed)."""
    global _url
    _url = url


def database_url() -> str:
    """The database of the ``postgres`` targets, started on first use."""
    global _url, _cluster
    with _lock:
        if _url is None:
            from zpm_contract.pg_cluster import Cluster

            cluster = Cluster()
            try:
                cluster.start()
            except BaseException:
                cluster.stop()
                raise
            _cluster, _url = cluster, cluster.url
        return _url


def stop() -> None:
    """Stop the throw-away cluster, if one was started (idempotent)."""
    global _cluster, _url
    with _lock:
        if _cluster is not None:
            from zpm_contract.pg_cluster import Cluster

            assert isinstance(_cluster, Cluster)
            _cluster.stop()
            _cluster, _url = None, None


def space_for(key: str) -> str:
    """A space name for ``key`` (a folder): the same key, the same space."""
    return "s" + hashlib.sha256(key.encode()).hexdigest()[:24]


def environment(storage: str, project: Path, env: Mapping[str, str]) -> dict[str, str]:
    """What a server of ``storage`` on ``project`` adds to its environment
    ``env``: nothing for files; the database, the project's space and the
    global space for PostgreSQL."""
    if storage == FILE:
        return {}
    return {
        "ZPM_STORAGE_URL": database_url(),
        "ZPM_SPACE": space_for(str(project.resolve())),
        "ZPM_GLOBAL_SPACE": space_for("global:" + env.get("XDG_DATA_HOME", "")),
    }


def push_knowledge(project: Path, env: Mapping[str, str]) -> None:
    """Store ``project``'s knowledge files in its space (``zpm kb push``)."""
    from zpm_app.bootstrap import config, storages

    settings = config.resolve_settings(project=str(project), env=dict(env))
    storages.push_knowledge(settings, "zpm kb push")


def _spaces(project: Path, env: Mapping[str, str]) -> tuple[str, str]:
    chosen = environment(POSTGRES, project, env)
    return chosen["ZPM_SPACE"], chosen["ZPM_GLOBAL_SPACE"]


def memory_stored(
    storage: str, project: Path, env: Mapping[str, str], name: str, global_scope: bool
) -> bool:
    """Whether memory ``name`` is kept for ``project`` (files: its folder
    under ``.zpm/kb/`` or under ``env``'s ``XDG_DATA_HOME``; PostgreSQL: its
    row in the project's or the global space)."""
    if storage == FILE:
        if global_scope:
            return (Path(env["XDG_DATA_HOME"]) / "zpm" / "kb" / name).is_dir()
        return (project / ".zpm" / "kb" / name).is_dir()
    import psycopg

    space, global_space = _spaces(project, env)
    with psycopg.connect(database_url()) as conn:
        row = conn.execute(
            "SELECT 1 FROM zpm_memories WHERE space = %s AND name = %s",
            (global_space if global_scope else space, name),
        ).fetchone()
    return row is not None


def stored_digest(storage: str, root: Path, project: Path, env: Mapping[str, str]) -> str:
    """A digest of everything kept for ``project``: with files, every file
    under ``root`` (the test's folder, holding the project and its global
    folder); with PostgreSQL, every row of its two spaces.  Equal digests:
    nothing was written."""
    digest = hashlib.sha256()
    if storage == FILE:
        for path in sorted(root.rglob("*")):
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            if not path.is_dir():
                digest.update(hashlib.sha256(path.read_bytes()).digest())
        return digest.hexdigest()
    import psycopg

    spaces = list(_spaces(project, env))
    tables = {
        "zpm_spaces": "space",
        "zpm_memories": "space, name",
        "zpm_journal": "space, memory, seq",
        "zpm_snapshots": "space, memory, name",
        "zpm_knowledge": "space, memory, file",
    }
    with psycopg.connect(database_url()) as conn:
        for table, order in tables.items():
            rows = conn.execute(
                f"SELECT t::text FROM {table} t WHERE space = ANY(%s) ORDER BY {order}",
                (spaces,),
            ).fetchall()
            digest.update(table.encode() + repr(rows).encode())
    return digest.hexdigest()
