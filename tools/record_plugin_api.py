"""Record zpm's plugin API (``zpm_plugin``) in ``tests/plugins/plugin_api.json``.

Usage::

    .venv/bin/python tools/record_plugin_api.py

The record holds every name ``zpm_plugin`` offers with its signature (for a
class: its constructor and every method a plugin calls or overrides, with
whether it is abstract or final).  ``tests/plugins/test_plugin_api.py``
fails when the API differs from it: a name gone or a signature changed
breaks plugins, so it needs a deprecation first (``zpm_plugin``'s doc says
how); a name added is recorded by running this again.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "plugins" / "plugin_api.json"


def describe() -> dict[str, Any]:
    """Every name of ``zpm_plugin.__all__`` and what a plugin relies on of it."""
    import zpm_plugin

    return {name: _describe(getattr(zpm_plugin, name)) for name in sorted(zpm_plugin.__all__)}


def _describe(value: Any) -> Any:
    if inspect.isclass(value):
        return {
            "class": _signature(value),
            "bases": [base.__name__ for base in value.__mro__[1:] if base is not object],
            "members": {
                name: _member(member)
                for name, member in sorted(_own_members(value).items())
                if _offered(name, subclassed=inspect.isabstract(value))
            },
        }
    if inspect.isfunction(value):
        return {"function": _signature(value)}
    if isinstance(value, frozenset):
        return {"set": sorted(value)}
    if type(value).__module__.startswith("pluggy"):
        return {"marker": getattr(value, "project_name", type(value).__name__)}
    if isinstance(value, str | int | float):
        return {"value": value}
    return {"type": _bare(str(value))}


def _own_members(cls: type) -> dict[str, Any]:
    """The members a class offers, its bases' included (a plugin sees them all)."""
    found: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if klass is object or klass.__module__ == "builtins":
            continue
        found.update(vars(klass))
    return found


def _offered(name: str, *, subclassed: bool) -> bool:
    """Public names; of a class plugins subclass (an abstract one: ``Engine``),
    also the protected methods they override (``_add_clause``)."""
    if name.startswith("__") or name.startswith("_abc"):
        return False
    return subclassed or not name.startswith("_")


def _member(member: Any) -> Any:
    target = member.fget if isinstance(member, property) else member
    target = getattr(target, "__func__", target)
    if not callable(target):
        return {"attribute": type(member).__name__}
    return {
        "signature": _signature(target),
        "abstract": bool(getattr(target, "__isabstractmethod__", False)),
        "final": bool(getattr(target, "__final__", False)),
        **({"property": True} if isinstance(member, property) else {}),
    }


def _signature(target: Any) -> str:
    try:
        return _bare(str(inspect.signature(target)))
    except (TypeError, ValueError):
        return "(...)"


def _bare(text: str) -> str:
    """``text`` with modules left out of qualified names: where a name is
    defined is not part of the API, only that ``zpm_plugin`` offers it."""
    return re.sub(r"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+([A-Za-z_][A-Za-z0-9_]*)", r"\1", text)


def main() -> None:
    sys.path.insert(0, str(ROOT / "src"))
    RECORD.write_text(json.dumps(describe(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {RECORD.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
