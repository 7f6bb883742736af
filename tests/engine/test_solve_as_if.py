"""``solve_as_if`` on the python engine (``zpm_contract.engine_checks.hypotheses``),
and with the port's default."""

from __future__ import annotations

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_contract.engine_checks.hypotheses import check_solve_as_if
from zpm_domain.ports.engine import Engine


def test_answers_as_if_changed_and_the_namespace_as_it_was() -> None:
    check_solve_as_if(PythonEngine())


def test_the_port_default_does_the_same() -> None:
    class Plain(PythonEngine):
        solve_as_if = Engine.solve_as_if

    check_solve_as_if(Plain(), whole_predicates=False)
