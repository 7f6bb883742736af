"""Make a plugin findable through a ``zpm`` entry point without ``pip install``.

``write_entry_point(site, dist, entry_name, module)`` writes
``site/<dist>-<version>.dist-info/`` (``METADATA`` and an ``entry_points.txt``
declaring ``[zpm] <entry_name> = <module>``).  A process with ``site`` on its
``PYTHONPATH`` (``site_env``) finds that entry point through
``importlib.metadata`` exactly as it finds one installed by pip, so the plugin
is loaded by zpm's own plugin manager; nothing in zpm is replaced.

``module`` must be importable in that process: either already (a package on
the path) or because it was written into ``site`` too (``write_plugin``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def write_entry_point(
    site: Path, dist: str, entry_name: str, module: str, *, version: str = "0.1"
) -> Path:
    """Declare ``[zpm] entry_name = module`` for distribution ``dist`` in ``site``."""
    info = site / f"{dist}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[zpm]\n{entry_name} = {module}\n", encoding="utf-8")
    return site


def write_plugin(
    site: Path,
    module: str,
    source: str,
    entry_name: str,
    *,
    dist: str | None = None,
    version: str = "0.1",
) -> Path:
    """Write plugin module ``site/<module>.py`` and its entry point; return ``site``."""
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    return write_entry_point(site, dist or module, entry_name, module, version=version)


def site_env(site: Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``PYTHONPATH`` putting ``site`` first, on top of ``base`` (default ``os.environ``)."""
    base = os.environ if base is None else base
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), base.get("PYTHONPATH")]))}
