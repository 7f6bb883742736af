"""``JanusEngine``: the Engine port on SWI-Prolog embedded through janus-swi.

The first engine made in a process activates the provisioned SWI-Prolog
(``swi_env.activate``), imports ``janus_swi`` and loads the support module;
later engines share that Prolog, each with modules of its own (namespace
``N`` of engine instance ``I`` is module ``zpm_<I>_<N>``).  janus
binds one Prolog engine per OS thread: call an engine from one thread.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from zpm_adapters import swi_env
from zpm_adapters.swi_common.binding import Binding, raise_in_thread
from zpm_adapters.swi_common.engine import SwiEngine, load_support
from zpm_domain.errors import ExecutionFailed


class JanusBinding(Binding):
    def __init__(self, janus: Any, install: swi_env.SwiInstall) -> None:
        self._janus = janus
        self._install = install
        found = janus.query_once("current_prolog_flag(version, V)")
        self._version = int(found["V"])
        if self._version != install.version:
            raise ExecutionFailed(
                f"janus loaded SWI-Prolog {self._version}, not the provisioned "
                f"{install.version_text}"
            )

    def once(self, goal: str, inputs: Mapping[str, Any]) -> dict[str, Any] | None:
        try:
            found: dict[str, Any] = self._janus.query_once(goal, dict(inputs))
        except self._janus.PrologError as error:
            raise RuntimeError(str(error)) from None
        if not found.pop("truth", False):
            return None
        return found

    def interrupt_thread(self, thread_id: int) -> None:
        raise_in_thread(self._install.libswipl, thread_id)

    def version_text(self) -> str:
        return f"janus (SWI-Prolog {self._install.version_text})"


_BINDING: JanusBinding | None = None


def _binding() -> JanusBinding:
    global _BINDING
    if _BINDING is None:
        found = swi_env.activate(binding="janus_swi")
        if isinstance(found, swi_env.NotProvisioned):
            raise ExecutionFailed(found.message())
        janus = importlib.import_module("janus_swi")
        binding = JanusBinding(janus, found)
        load_support(binding)
        _BINDING = binding
    return _BINDING


class JanusEngine(SwiEngine):
    """SWI-Prolog through janus-swi (see ``swi_common.engine`` for the behaviour)."""

    name = "janus"

    def __init__(self) -> None:
        super().__init__(_binding())
