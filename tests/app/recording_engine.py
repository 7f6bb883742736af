"""The python engine, noting who calls which port method with which keywords.

:class:`RecordingEngine` is a real engine (a ``PythonEngine``); each public
method of the ``Engine`` port notes ``(method, form)`` under the caller the
test names in :attr:`RecordingEngine.caller`.  ``form`` is the keyword
arguments given, as ``name=value`` texts in order (``static=True``), empty
for a call with positional arguments only.

Only calls from outside the engine are noted: a port method that the engine
calls on itself (the port's default ``copy_clauses`` calls ``add_clauses``)
is part of the outer call.  A method that returns an iterator (``solve``,
``iter_clauses``) is inside the engine while the caller advances it too.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_domain.ports.engine import Engine

PORT_METHODS: tuple[str, ...] = tuple(
    dict.fromkeys(
        name
        for part in reversed(Engine.__mro__)
        for name, value in vars(part).items()
        if inspect.isfunction(value) and not name.startswith("_")
    )
)
"""Every public method of the port, in the order the port declares them: the
core's, then each capability's."""

Call = tuple[str, str]
"""``(method, form)``: ``("add_clause", "static=True")``, ``("clauses", "")``."""


class RecordingEngine(PythonEngine):
    """A python engine that notes the calls it receives (see the module)."""

    name = "recording"

    def __init__(self) -> None:
        super().__init__()
        self.caller = "start-up"
        self.calls: dict[Call, set[str]] = {}
        self._depth = 0

    def _run(self, method: str, body: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        if self._depth == 0:
            form = ", ".join(f"{key}={value!r}" for key, value in kwargs.items())
            self.calls.setdefault((method, form), set()).add(self.caller)
        self._depth += 1
        try:
            result = body(self, *args, **kwargs)
        finally:
            self._depth -= 1
        return self._inside(result) if isinstance(result, Iterator) else result

    def _inside(self, items: Iterator[Any]) -> Iterator[Any]:
        try:
            while True:
                self._depth += 1
                try:
                    item = next(items)
                except StopIteration:
                    return
                finally:
                    self._depth -= 1
                yield item
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()


def _noting(method: str) -> Callable[..., Any]:
    body = getattr(PythonEngine, method)

    def noted(self: RecordingEngine, *args: Any, **kwargs: Any) -> Any:
        return self._run(method, body, args, kwargs)

    noted.__name__ = method
    noted.__doc__ = body.__doc__
    return noted


for _method in PORT_METHODS:
    setattr(RecordingEngine, _method, _noting(_method))
