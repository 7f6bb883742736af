"""The layering is enforced: the import-linter contracts of ``pyproject.toml``
hold, and each one breaks when code breaks the rule it states.

Each breaking case runs the contracts on a copy of ``src`` with one import
added, so the real tree is never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).parent / "lint-imports"


def _lint(root: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    only = [arg for contract in contracts for arg in ("--contract", contract)]
    return subprocess.run(
        [str(LINT), "--no-cache", "--no-logo", *only],
        cwd=root,
        env={**os.environ, "PYTHONPATH": f"{root / 'src'}{os.pathsep}{root}"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_contract_holds() -> None:
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the packages and the contracts, to break."""
    for package in ("zpm_domain", "zpm_adapters", "zpm_app"):
        shutil.copytree(
            ROOT / "src" / package,
            tmp_path / "src" / package,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "import_contracts.py", tmp_path / "tools")
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


BREAKS = [
    # (contract, module to edit, the import added, what the report names)
    ("domain-stdlib", "zpm_domain/limits.py", "import pluggy", "zpm_domain.limits imports pluggy"),
    (
        "domain-layers",
        "zpm_domain/stored/clauses.py",
        "if TYPE_CHECKING:\n    from zpm_domain.tools import definition",
        "zpm_domain.stored is not allowed to import zpm_domain.tools",
    ),
    (
        "no-cycles",
        "zpm_domain/memory/names.py",
        "if TYPE_CHECKING:\n    from zpm_domain.memory import mounts",
        "No cycles are allowed in zpm_domain.memory",
    ),
    (
        "adapters-not-app",
        "zpm_adapters/files/project.py",
        "from zpm_app import config",
        "zpm_adapters.files.project -> zpm_app",
    ),
    (
        "app-layers",
        "zpm_app/worker/toolbox.py",
        "from zpm_app.services import forks",
        "zpm_app.worker is not allowed to import zpm_app.services",
    ),
    (
        "app-adapters-at-the-root",
        "zpm_app/services/forks.py",
        "from zpm_adapters.files import project",
        "zpm_app.services.forks -> zpm_adapters",
    ),
    (
        "adapter-layers",
        "zpm_adapters/engine_janus/__init__.py",
        "from zpm_adapters.engine_python import runtime",
        "zpm_adapters.engine_janus is not allowed to import zpm_adapters.engine_python",
    ),
]


@pytest.mark.parametrize(
    ("contract", "module", "added", "named"), BREAKS, ids=[b[0] for b in BREAKS]
)
def test_a_contract_breaks_when_its_rule_is_broken(
    copy: Path, contract: str, module: str, added: str, named: str
) -> None:
    assert _lint(copy, contract).returncode == 0, "the copy holds before the change"
    path = copy / "src" / module
    text = path.read_text()
    header = "from typing import TYPE_CHECKING\n" if "TYPE_CHECKING" in added else ""
    marker = "from __future__ import annotations\n"
    assert marker in text
    path.write_text(text.replace(marker, f"{marker}{header}{added}\n", 1))
    done = _lint(copy, contract)
    assert done.returncode != 0
    assert "BROKEN" in done.stdout and named in done.stdout, done.stdout
