"""``PyswipEngine``: the Engine port on SWI-Prolog embedded through pyswip.

The first engine made in a process starts a dedicated Prolog thread, which
activates the provisioned SWI-Prolog (``swi_env.activate``), imports
``pyswip`` (which starts Prolog), checks the version, and consults the
support modules; every later Prolog call of every engine of the process
runs on that thread.  Engines share that Prolog (each keeps its own
namespaces' mirror; two engines must not use the same namespace names at
once).  Never import janus in the same process.

Goals are run through ``zpm_pyswip:zpm_pyswip_once/3`` with the goal text
and the inputs as Prolog terms built through the C interface (``ffi``), not
through pyswip's string-splicing query API.
"""

from __future__ import annotations

import atexit
import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from zpm_adapters import swi_env
from zpm_adapters.engine_pyswip.ffi import PL_Q_CATCH_EXCEPTION, Ffi
from zpm_adapters.engine_pyswip.worker import PrologThread
from zpm_adapters.swi_common.binding import Binding, raise_in_thread
from zpm_adapters.swi_common.engine import SwiEngine, load_support
from zpm_domain.errors import ExecutionFailed

PYSWIP_SUPPORT = Path(__file__).with_name("pyswip_support.pl")
QUERY_FLAGS = PL_Q_CATCH_EXCEPTION
"""No ``PL_Q_NODEBUG``: it suspends ``prolog:prolog_exception_hook/5``, which
``zpm_goals.pl`` uses to scrub errors before a catcher sees them (janus
calls Prolog without it too)."""


class PyswipBinding(Binding):
    """:class:`Binding` over pyswip; see the module docstring."""

    def __init__(self, thread: PrologThread, install: swi_env.SwiInstall) -> None:
        self._thread = thread
        self._install = install
        self._ffi: Ffi | None = None
        self._pred: Any = None
        thread.call(self._start)

    def _start(self) -> None:
        importlib.import_module("pyswip")
        # pyswip's exit hook stops Prolog from the main thread, which does not
        # own the engine (a warning, or a double free after a stop from here):
        # the process exit reclaims everything instead.
        atexit.unregister(importlib.import_module("pyswip.core").cleanupProlog)
        ffi = Ffi(str(self._install.libswipl))
        self._ffi = ffi
        self._pred = ffi.PL_predicate(b"call", 1, b"user")
        self._raw_once(f"consult('{_quoted(PYSWIP_SUPPORT)}')")
        self._pred = ffi.PL_predicate(b"zpm_pyswip_once", 3, b"zpm_pyswip")
        found = self._once("current_prolog_flag(version, V)", {})
        version = None if found is None else found["V"]
        if version != self._install.version:
            raise ExecutionFailed(
                f"pyswip loaded SWI-Prolog {version}, not the provisioned "
                f"{self._install.version_text}"
            )

    def _raw_once(self, text: str) -> None:
        ffi = self._ffi
        assert ffi is not None
        frame = ffi.open_frame()
        try:
            goal = ffi.PL_new_term_ref()
            if not ffi.PL_chars_to_term(text.encode("utf-8"), goal):
                raise RuntimeError(f"cannot read {text}")
            if not ffi.PL_call_predicate(None, QUERY_FLAGS, self._pred, goal):
                raise RuntimeError(f"{text} failed")
        finally:
            ffi.close_frame(frame)

    def once(self, goal: str, inputs: Mapping[str, Any]) -> dict[str, Any] | None:
        bound = dict(inputs)
        return self._thread.call(lambda: self._once(goal, bound))

    def _once(self, goal: str, inputs: dict[str, Any]) -> dict[str, Any] | None:
        ffi = self._ffi
        assert ffi is not None
        frame = ffi.open_frame()
        try:
            args = ffi.PL_new_term_refs(3)
            ffi.put(args, goal)
            flat: list[Any] = []
            for name, value in inputs.items():
                flat.extend((name, value))
            ffi.put(args + 1, flat)
            if not ffi.PL_call_predicate(None, QUERY_FLAGS, self._pred, args):
                ffi.PL_clear_exception()
                raise RuntimeError(f"zpm_pyswip_once failed on {goal}")
            result = ffi.get(args + 2)
        finally:
            ffi.close_frame(frame)
        if result == "false":
            return None
        kind, payload = result
        if kind == "error":
            raise RuntimeError(str(payload))
        return dict(zip(payload[0::2], payload[1::2], strict=True))

    def interrupt_thread(self, thread_id: int) -> None:
        raise_in_thread(self._install.libswipl, thread_id)

    def version_text(self) -> str:
        return f"pyswip (SWI-Prolog {self._install.version_text})"


def _quoted(path: Path) -> str:
    return str(path).replace("\\", "\\\\").replace("'", "\\'")


_BINDING: PyswipBinding | None = None


def _binding() -> PyswipBinding:
    global _BINDING
    if _BINDING is None:
        found = swi_env.activate(binding="pyswip")
        if isinstance(found, swi_env.NotProvisioned):
            raise ExecutionFailed(found.message())
        binding = PyswipBinding(PrologThread("zpm-pyswip"), found)
        load_support(binding)
        _BINDING = binding
    return _BINDING


class PyswipEngine(SwiEngine):
    """SWI-Prolog through pyswip (see ``swi_common.engine`` for the behaviour)."""

    name = "pyswip"

    def __init__(self) -> None:
        super().__init__(_binding())
