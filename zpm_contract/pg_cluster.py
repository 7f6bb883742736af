"""A throw-away PostgreSQL cluster for tests: its own data folder, a free
loopback port, started and stopped by the test run (never the machine's own
cluster).  The contract suite runs its ``@postgres`` targets on one
(``zpm_contract.shared_storage``), and zpm's own storage tests use it.

``initdb`` and ``pg_ctl`` refuse to run as root, so as root they run as the
``postgres`` user (``runuser``), which owns the data folder.  The server binaries
are those ``scripts/provision-postgres`` makes sure of: the newest
``/usr/lib/postgresql/<version>/bin`` (or ``$ZPM_PG_BIN``).  ``fsync`` and
``synchronous_commit`` stay on: what a test sees committed is on disk.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

USER = "zpm"
"""The cluster's superuser (trusted on loopback: the cluster lives for one run)."""


class ClusterFailed(RuntimeError):
    """The cluster could not be made, started or stopped; the text says why."""


def server_bin() -> Path:
    """The bin folder of the newest installed PostgreSQL server."""
    forced = os.environ.get("ZPM_PG_BIN")
    if forced:
        return Path(forced)
    found = sorted(
        (p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "initdb").exists()),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    if not found:
        raise ClusterFailed("no PostgreSQL server is installed: run scripts/provision-postgres")
    return found[-1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Cluster:
    """One throw-away cluster (see the module documentation)."""

    def __init__(self, bin_dir: Path | None = None) -> None:
        self._bin = bin_dir or server_bin()
        self._root = Path(tempfile.mkdtemp(prefix="zpm-pg-"))
        self.data = self._root / "data"
        self.log = self._root / "server.log"
        self.port = 0
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            owner = pwd.getpwnam("postgres")
            os.chown(self._root, owner.pw_uid, owner.pw_gid)
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            USER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )

    @property
    def url(self) -> str:
        """A libpq connection URL of the cluster's ``postgres`` database."""
        return f"postgresql://{USER}@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        """Start the server on a free loopback port (tries three ports)."""
        for _ in range(3):
            self.port = _free_port()
            try:
                self._start_server()
                return
            except ClusterFailed:
                continue
        raise ClusterFailed(f"the cluster did not start:\n{self._log_tail()}")

    def crash(self) -> None:
        """Stop the server as a crash would (``-m immediate``), keeping its
        files: :meth:`resume` starts it again on the same port."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def resume(self) -> None:
        """Start the server again after :meth:`crash`, on the same port."""
        self._start_server()

    def restart(self, *, immediate: bool) -> None:
        """Stop the server (``immediate``: as a crash, without a checkpoint,
        so recovery replays its WAL) and start it again on the same port."""
        self._run(
            "pg_ctl", "-D", str(self.data), "-m", "immediate" if immediate else "fast", "-w", "stop"
        )
        self._start_server()

    def _start_server(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} "
            f"-c unix_socket_directories={self._root} -c fsync=on -c synchronous_commit=on"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "start",
        )

    def stop(self) -> None:
        """Stop the server and remove the cluster's files (idempotent)."""
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self._root, ignore_errors=True)

    def _run(self, program: str, *args: str) -> None:
        command = [str(self._bin / program), *args]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd="/")
        if done.returncode != 0:
            raise ClusterFailed(
                f"{program} failed ({done.returncode}): {done.stderr.strip() or done.stdout}"
            )

    def _log_tail(self) -> str:
        try:
            return "\n".join(self.log.read_text().splitlines()[-20:])
        except OSError:
            return "(no server log)"
