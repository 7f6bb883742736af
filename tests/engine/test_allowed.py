"""Every predicate on the allow-list is implemented: by the solver (control
constructs), the Prolog library, or a Python built-in."""

from __future__ import annotations

import pytest

from zpm_adapters.engine_python import code as op
from zpm_adapters.engine_python.compiler import compile_goal
from zpm_adapters.engine_python.engine import PythonEngine
from zpm_adapters.engine_python.library import system_namespace
from zpm_adapters.engine_python.runtime import Ref
from zpm_adapters.engine_python.store import Namespace
from zpm_domain.prolog.allowlist import ALLOWED, DENIED
from zpm_domain.prolog.terms import Atom, Struct


def resolved(name: str, arity: int) -> tuple[object, ...]:
    goal = Struct(name, tuple(Ref() for _ in range(arity))) if arity else Atom(name)
    return compile_goal(goal, Namespace("probe"), system_namespace())[0]


@pytest.mark.parametrize("name, arity", sorted(ALLOWED))
def test_allowed_predicate_is_implemented(name: str, arity: int) -> None:
    instruction = resolved(name, arity)
    kind = instruction[0]
    assert kind not in (op.UNDEFINED, op.DENY), f"{name}/{arity} is not implemented"
    if kind == op.CALL:
        pred = instruction[1]
        assert pred.ns is system_namespace() and pred.defined, f"{name}/{arity} has no clauses"


@pytest.mark.parametrize("name, arity", sorted(DENIED)[:40])
def test_denied_predicates_compile_to_a_refusal(name: str, arity: int) -> None:
    assert resolved(name, arity)[0] == op.DENY


def test_version() -> None:
    assert PythonEngine().version() == "python (zpm pure-Python engine) 0.4.0"
    assert PythonEngine.name == "python"


def test_the_library_is_parsed_once_per_process() -> None:
    """Every CLI command builds an engine: the library must not be re-read each time
    (the cost itself is measured by ``benchmarks/engine_ops.py``)."""
    first, second = PythonEngine(), PythonEngine()
    assert first._system is second._system
