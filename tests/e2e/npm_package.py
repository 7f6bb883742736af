"""Installing a locked npm package that a test drives (Node.js and npm come
from ``scripts/provision-node``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def installed(source: Path, folder: Path, *files: str) -> Path:
    """``source``'s npm package (``files`` besides its manifest and lock)
    installed by ``npm ci`` into ``folder``."""
    for name in ("package.json", "package-lock.json", *files):
        shutil.copy(source / name, folder / name)
    npm = shutil.which("npm")
    assert npm is not None, "npm is missing: run scripts/provision-node"
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return folder
