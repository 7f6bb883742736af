"""The provisioning scripts: syntax, and scripts/swi-env on fake state files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"


@pytest.mark.parametrize("name", ["provision-swi", "swi-env"])
def test_script_is_executable_bash(name: str) -> None:
    script = SCRIPTS / name
    assert os.access(script, os.X_OK)
    subprocess.run(["bash", "-n", str(script)], check=True)


def run_swi_env(state: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ZPM_SWI_STATE": str(state), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [str(SCRIPTS / "swi-env")], env=env, capture_output=True, text=True, timeout=60
    )


def test_swi_env_prints_exports_for_the_state_file(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "swipl").write_text("")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "libswipl.so").write_text("")
    state = tmp_path / "state.json"
    state.write_text(
        json.dumps(
            {
                "swipl": str(tmp_path / "bin" / "swipl"),
                "version": 90209,
                "swi_home_dir": str(tmp_path / "home"),
                "libswipl": str(tmp_path / "home" / "libswipl.so"),
            }
        )
    )
    done = run_swi_env(state)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"export SWI_HOME_DIR={tmp_path / 'home'}",
        f"export LIBSWIPL_PATH={tmp_path / 'home' / 'libswipl.so'}",
        f"export PATH={tmp_path / 'bin'}:/usr/bin:/bin",
    ]


def test_swi_env_fails_loudly_when_not_provisioned(tmp_path: Path) -> None:
    done = run_swi_env(tmp_path / "absent.json")
    assert done.returncode == 1 and done.stdout == ""
    assert "not provisioned" in done.stderr and "scripts/provision-swi" in done.stderr
