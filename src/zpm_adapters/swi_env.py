"""Discovery of the SWI-Prolog that zpm's SWI engines embed.

In a checkout of zpm, ``scripts/provision-swi`` chooses it and records it in
a state file; in an installed package without one, the ``swipl`` on ``PATH``
(``$ZPM_SWIPL`` when set) is used, as its ``--dump-runtime-variables``
describe it.  :func:`setup_advice` says what to do when there is none.

The provisioning script records the chosen SWI-Prolog in a small JSON state
file::

    {"swipl": "/opt/zpm/swipl-9.2.9/bin/swipl", "version": 90209,
     "version_text": "9.2.9", "swi_home_dir": "/opt/zpm/swipl-9.2.9/lib/swipl",
     "libswipl": "/opt/zpm/swipl-9.2.9/lib/swipl/lib/x86_64-linux/libswipl.so.9.2.9"}

State files are looked for, in order: ``$ZPM_SWI_STATE`` (when set, it is the
only place looked at, and ``PATH`` is not), ``<sys.prefix>/zpm-swi.json`` (the
venv the SWI bindings were built in), ``/var/lib/zpm/swi.json`` (machine-wide).

:func:`activate` must run before ``janus_swi`` or ``pyswip`` is imported: both
load ``libswipl`` at import time, and with two SWI-Prolog versions on one
machine the wrong pairing of library and home aborts the process (VM signature
mismatch) or crashes it.  Only one of the two bindings may ever be imported in
one process.  This module never imports a binding and needs only the standard
library.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path

MIN_VERSION = 90112
"""SWI-Prolog 9.1.12, the first release with ``library(janus)``."""

STATE_ENV = "ZPM_SWI_STATE"
SYSTEM_STATE_FILE = Path("/var/lib/zpm/swi.json")
VENV_STATE_NAME = "zpm-swi.json"
BINDING_MODULES = ("janus_swi", "pyswip")
SWIPL_ENV = "ZPM_SWIPL"
CHECKOUT_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "provision-swi"
"""``scripts/provision-swi`` of the checkout this module runs from (none in a package)."""
DISTRIBUTION = "zpm-memory"


def setup_advice(script: Path = CHECKOUT_SCRIPT) -> str:
    """What to do to get a SWI-Prolog the SWI engines can use.

    From a checkout that has ``script``: run it.  Otherwise (an installed
    package): install SWI-Prolog >= 9.1.12, then the ``swi`` extra, whose
    janus-swi is compiled against the SWI-Prolog it finds.
    """
    if script.is_file():
        return f"run {script.parent.name}/{script.name} as root (see docs/swi-prolog.md)"
    return (
        "install SWI-Prolog >= 9.1.12 (Debian 13: apt-get install swi-prolog-nox; "
        "Debian 12 has only 9.0.4: take a newer one from "
        "https://www.swi-prolog.org/download/stable or, on Ubuntu, ppa:swi-prolog/stable), "
        f"then pip install '{DISTRIBUTION}[swi]' (janus-swi is compiled against the "
        "swipl on PATH, so install SWI-Prolog first)"
    )


FIX = setup_advice()


@dataclass(frozen=True, slots=True)
class SwiInstall:
    """One usable SWI-Prolog, as recorded in ``state_file`` (``None``: the
    ``swipl`` found on ``PATH``)."""

    swipl: Path
    version: int
    version_text: str
    home: Path
    libswipl: Path
    state_file: Path | None

    def environment(self) -> dict[str, str]:
        """The variables a binding needs to load this SWI-Prolog (``PATH`` excluded)."""
        return {"SWI_HOME_DIR": str(self.home), "LIBSWIPL_PATH": str(self.libswipl)}


@dataclass(frozen=True, slots=True)
class NotProvisioned:
    """Why no usable SWI-Prolog was found, and what to do about it."""

    reason: str
    fix: str = FIX

    def message(self) -> str:
        """One line for users: the reason, then the fix."""
        return f"{self.reason}; {self.fix}"


def state_file_candidates(
    environ: Mapping[str, str] | None = None, prefix: str | None = None
) -> list[Path]:
    """The state files to try, in order (see the module docstring)."""
    env = os.environ if environ is None else environ
    explicit = env.get(STATE_ENV, "")
    if explicit:
        return [Path(explicit)]
    return [Path(sys.prefix if prefix is None else prefix) / VENV_STATE_NAME, SYSTEM_STATE_FILE]


def read_state(path: Path) -> SwiInstall | NotProvisioned:
    """Parse and check one state file.

    Checks: readable JSON object; string fields ``swipl``, ``swi_home_dir``,
    ``libswipl`` and an integer ``version`` >= 9.1.12; the binary, the home
    directory and the library exist.  ``version_text`` is derived from
    ``version`` when absent.  Never raises for a bad file: the reason is returned.
    """
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return NotProvisioned(f"no SWI-Prolog state file at {path}")
    except OSError as exc:
        return NotProvisioned(f"cannot read {path}: {exc.strerror or exc}")
    try:
        data = json.loads(raw)
    except ValueError as exc:
        return NotProvisioned(f"{path} is not valid JSON ({exc})")
    if not isinstance(data, dict):
        return NotProvisioned(f"{path} does not hold a JSON object")
    return _checked(data, path, path)


def _checked(
    data: dict[str, object], path: Path, state_file: Path | None
) -> SwiInstall | NotProvisioned:
    """The install that ``data`` (a state record) describes, once checked;
    ``path`` (the state file, or the ``swipl``) names it in reasons."""
    missing = [
        key
        for key in ("swipl", "swi_home_dir", "libswipl")
        if not isinstance(data.get(key), str) or not data[key]
    ]
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        missing.append("version")
    if missing:
        return NotProvisioned(f"{path} lacks {', '.join(missing)}")
    assert isinstance(version, int)
    text = data.get("version_text")
    if not isinstance(text, str) or not text:
        text = f"{version // 10000}.{version // 100 % 100}.{version % 100}"
    if version < MIN_VERSION:
        return NotProvisioned(f"SWI-Prolog {text} in {path} is older than 9.1.12 (no janus)")
    install = SwiInstall(
        swipl=Path(str(data["swipl"])),
        version=version,
        version_text=text,
        home=Path(str(data["swi_home_dir"])),
        libswipl=Path(str(data["libswipl"])),
        state_file=state_file,
    )
    for label, file, ok in (
        ("swipl", install.swipl, install.swipl.is_file()),
        ("SWI_HOME_DIR", install.home, install.home.is_dir()),
        ("libswipl", install.libswipl, install.libswipl.is_file()),
    ):
        if not ok:
            return NotProvisioned(f"{label} {file} named in {path} does not exist")
    return install


_RUNTIME_VARIABLE = re.compile(r'^(\w+)="(.*)";$')


def on_path(environ: Mapping[str, str] | None = None) -> SwiInstall | NotProvisioned:
    """The SWI-Prolog of ``$ZPM_SWIPL``, else of the ``swipl`` on ``PATH``, checked
    as a state file is; its runtime variables tell its version, home and library."""
    env = os.environ if environ is None else environ
    swipl = env.get(SWIPL_ENV) or shutil.which("swipl", path=env.get("PATH", os.defpath))
    if not swipl:
        return NotProvisioned("no swipl on PATH")
    try:
        dumped = subprocess.run(
            [swipl, "--dump-runtime-variables"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return NotProvisioned(f"{swipl} --dump-runtime-variables failed ({exc})")
    variables: dict[str, str] = {}
    for line in dumped.splitlines():
        if match := _RUNTIME_VARIABLE.match(line):
            variables[match[1]] = match[2]
    version = variables.get("PLVERSION", "")
    record: dict[str, object] = {
        "swipl": swipl,
        "version": int(version) if version.isdigit() else None,
        "swi_home_dir": variables.get("PLBASE"),
        "libswipl": variables.get("PLLIBSWIPL"),
    }
    return _checked(record, Path(swipl), None)


def discover(
    candidates: Sequence[Path] | None = None,
    environ: Mapping[str, str] | None = None,
) -> SwiInstall | NotProvisioned:
    """The first valid state file among ``candidates`` (default: the usual
    places, then the ``swipl`` on ``PATH`` unless ``$ZPM_SWI_STATE`` is set).

    When none is valid, the reasons of every candidate are joined into one.
    """
    env = os.environ if environ is None else environ
    paths = state_file_candidates(env) if candidates is None else list(candidates)
    reasons: list[str] = []
    for path in paths:
        found = read_state(path)
        if isinstance(found, SwiInstall):
            return found
        reasons.append(found.reason)
    if candidates is None and not env.get(STATE_ENV):
        found = on_path(env)
        if isinstance(found, SwiInstall):
            return found
        reasons.append(found.reason)
    if not reasons:
        return NotProvisioned("no SWI-Prolog state file to look at")
    return NotProvisioned("SWI-Prolog is not provisioned: " + "; ".join(reasons))


def activate(
    state_file: str | Path | None = None,
    environ: MutableMapping[str, str] | None = None,
    loaded_modules: Mapping[str, object] | None = None,
    *,
    binding: str | None = None,
) -> SwiInstall | NotProvisioned:
    """Point the SWI bindings of this process at the provisioned SWI-Prolog.

    ``binding`` (one of ``BINDING_MODULES``) is the binding about to load:
    when the *other* one is already imported, the reason is returned, since
    two bindings would load SWI-Prolog twice into one process (a crash).

    Sets ``SWI_HOME_DIR`` and ``LIBSWIPL_PATH`` (overwriting earlier values) and
    puts the ``swipl`` directory first on ``PATH`` in ``environ`` (default:
    ``os.environ``).  ``state_file`` names the file to read instead of the
    usual places.  When a binding is already imported (``loaded_modules``,
    default ``sys.modules``) the environment is left alone and, unless it
    already names this installation, the reason is returned: the binding
    loaded whatever SWI-Prolog it found and cannot be moved any more.
    """
    env = os.environ if environ is None else environ
    modules = sys.modules if loaded_modules is None else loaded_modules
    others = [name for name in BINDING_MODULES if name != binding and name in modules]
    if binding is not None and others:
        return NotProvisioned(
            f"{others[0]} already runs SWI-Prolog in this process, so {binding} cannot load it",
            "use one SWI engine per process (janus or pyswip, not both)",
        )
    found = discover([Path(state_file)] if state_file is not None else None, env)
    if isinstance(found, NotProvisioned):
        return found
    wanted = found.environment()
    loaded = [name for name in BINDING_MODULES if name in modules]
    if loaded:
        if all(env.get(key) == value for key, value in wanted.items()):
            return found
        return NotProvisioned(
            f"{loaded[0]} was imported before the SWI-Prolog environment was set",
            "call zpm_adapters.swi_env.activate() before importing a SWI binding",
        )
    env.update(wanted)
    bin_dir = str(found.swipl.parent)
    path_entries = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != bin_dir]
    env["PATH"] = os.pathsep.join([bin_dir, *path_entries])
    return found
