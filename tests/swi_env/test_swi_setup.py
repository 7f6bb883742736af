"""Where an installed package finds SWI-Prolog (the ``swipl`` on PATH, when no
state file names one), and what ``zpm engines`` tells a user without one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zpm_adapters.swi_env import (
    CHECKOUT_SCRIPT,
    STATE_ENV,
    SWIPL_ENV,
    NotProvisioned,
    SwiInstall,
    discover,
    on_path,
    setup_advice,
)


def provisioned() -> SwiInstall:
    """The SWI-Prolog this machine's tests run on (scripts/provision-swi chose it)."""
    found = discover()
    assert isinstance(found, SwiInstall), found
    return found


def test_a_checkout_is_told_to_run_its_provisioning_script() -> None:
    assert CHECKOUT_SCRIPT.is_file()
    assert setup_advice() == "run scripts/provision-swi as root (see docs/swi-prolog.md)"


def test_an_installed_package_is_told_what_to_install(tmp_path: Path) -> None:
    advice = setup_advice(tmp_path / "scripts" / "provision-swi")
    assert "provision-swi" not in advice
    assert advice.startswith("install SWI-Prolog >= 9.1.12 (Debian 13: apt-get install swi-prolog")
    assert "Debian 12 has only 9.0.4" in advice and "https://www.swi-prolog.org/download" in advice
    assert "then pip install 'zpm-memory[swi]'" in advice
    assert "janus-swi is compiled against the swipl on PATH" in advice


def test_the_swipl_on_path_describes_itself() -> None:
    install = provisioned()
    found = on_path({"PATH": os.pathsep.join(["/nonexistent", str(install.swipl.parent)])})
    assert isinstance(found, SwiInstall) and found.state_file is None
    assert (found.swipl, found.version) == (install.swipl, install.version)
    assert found.home == install.home
    assert found.libswipl.is_file()


def test_the_swipl_variable_names_one_off_path() -> None:
    install = provisioned()
    found = on_path({"PATH": "/nonexistent", SWIPL_ENV: str(install.swipl)})
    assert isinstance(found, SwiInstall) and found.swipl == install.swipl


def test_without_swipl_on_path_the_reason_says_so(tmp_path: Path) -> None:
    assert on_path({"PATH": str(tmp_path)}) == NotProvisioned("no swipl on PATH")


def test_too_old_a_swipl_on_path_is_refused(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libswipl.so").write_bytes(b"")
    swipl = tmp_path / "swipl"
    swipl.write_text(
        "#!/bin/sh\n"
        "echo 'PLVERSION=\"90004\";'\n"
        f"echo 'PLBASE=\"{tmp_path}\";'\n"
        f"echo 'PLLIBSWIPL=\"{tmp_path}/lib/libswipl.so\";'\n"
    )
    swipl.chmod(0o755)
    found = on_path({"PATH": str(tmp_path)})
    assert found == NotProvisioned(f"SWI-Prolog 9.0.4 in {swipl} is older than 9.1.12 (no janus)")


def test_discover_falls_back_to_the_swipl_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install = provisioned()
    monkeypatch.setattr("sys.prefix", str(tmp_path))  # no venv state file
    monkeypatch.setattr("zpm_adapters.swi_env.SYSTEM_STATE_FILE", tmp_path / "absent.json")
    found = discover(environ={"PATH": str(install.swipl.parent)})
    assert isinstance(found, SwiInstall) and found.state_file is None
    assert found.swipl == install.swipl


def test_the_state_variable_turns_the_path_fallback_off(tmp_path: Path) -> None:
    install = provisioned()
    env = {"PATH": str(install.swipl.parent), STATE_ENV: str(tmp_path / "absent.json")}
    found = discover(environ=env)
    assert isinstance(found, NotProvisioned) and "no SWI-Prolog state file" in found.reason
