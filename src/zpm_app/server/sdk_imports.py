"""Importing the MCP SDK's server without the rest of the SDK.

The initialisers of the packages ``mcp`` and ``mcp.server`` import, for
convenience, the whole SDK: the client, the high-level ``MCPServer`` and
their dependencies.  ``zpm serve`` imports the modules it uses by their
full names (``mcp.server.lowlevel.server``...), and never those.

:func:`defer_package_initialisers` puts each of the two packages in
``sys.modules`` as a module that has its real search path, so importing
a submodule finds it, but whose initialiser runs only when a name is asked
of the package itself (``from mcp import Client``, ``mcp.server.Server``):
then it runs, in that very module, and the name is there.  Nothing changes
for code that asks, except when the initialiser runs.  It saves about a
sixth of the server's start (the SDK's ``mcp`` 2.x; measured by
``benchmarks/compare.py``'s ``start`` row).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

DEFERRED = ("mcp", "mcp.server")
"""The packages whose initialisers wait, parents first."""

_lock = threading.RLock()


def defer_package_initialisers() -> None:
    """Put :data:`DEFERRED` in ``sys.modules`` as deferred packages (see the
    module doc).  Does nothing for a package imported already, or when one
    cannot be found (the import that needs it then fails as usual)."""
    with _lock:
        for name in DEFERRED:
            if name in sys.modules:
                continue
            spec = importlib.util.find_spec(name)
            if spec is None or spec.loader is None or spec.submodule_search_locations is None:
                return
            module = importlib.util.module_from_spec(spec)
            module.__dict__["__getattr__"] = _initialiser(module)
            sys.modules[name] = module
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], child, module)


def _initialiser(module: ModuleType) -> Any:
    def __getattr__(name: str) -> Any:
        # Python asks a module for dunder names it may not have (__path__
        # has been set, __wrapped__, ...); those never need the initialiser.
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        with _lock:
            if "__getattr__" in module.__dict__:
                del module.__dict__["__getattr__"]
                spec = module.__spec__
                assert spec is not None and spec.loader is not None
                spec.loader.exec_module(module)
        return getattr(module, name)

    return __getattr__
