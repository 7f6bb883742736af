"""zpm as it is packaged: building the sdist and the wheel, and installing the
wheel into a fresh virtual environment (pip takes packages from its cache and
the configured index, as for any install)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*command: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``command``; fails with its output unless it exits 0."""
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


SOURCE_IGNORED = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "__pycache__", "*.egg-info", "build", "dist", ".*_cache"
)
"""What a copy of the checkout leaves out: nothing a build reads."""


def build_dist(out: Path) -> Path:
    """The sdist, and the wheel built from it, as ``python -m build`` makes them, in ``out``.

    The build runs in a copy of the checkout (``out/source``): a build writes
    into the tree it builds (``src/*.egg-info``), and test workers that build
    at the same time in one tree break each other's builds."""
    source = out / "source"
    shutil.copytree(ROOT, source, ignore=SOURCE_IGNORED)
    run(sys.executable, "-m", "build", "--outdir", out, source)
    return out


def wheel_of(dist: Path) -> Path:
    (wheel,) = dist.glob("zpm_memory-*-py3-none-any.whl")
    return wheel


def venv_with(venv: Path, *requirements: str | Path) -> Path:
    """A new virtual environment at ``venv`` with ``requirements`` installed; its ``bin``."""
    run(sys.executable, "-m", "venv", venv)
    bin_dir = venv / "bin"
    run(bin_dir / "python", "-m", "pip", "install", "--quiet", *requirements)
    return bin_dir
