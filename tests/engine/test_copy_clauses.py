"""``copy_clauses`` on the python engine (``zpm_contract.engine_checks.copies``), and with
the port's default."""

from __future__ import annotations

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_contract.engine_checks.copies import check_copy_clauses
from zpm_domain.ports.engine import Engine


def test_a_copy_is_an_addition_and_the_namespaces_change_apart() -> None:
    check_copy_clauses(PythonEngine())


def test_the_port_default_does_the_same() -> None:
    class Plain(PythonEngine):
        copy_clauses = Engine.copy_clauses

    check_copy_clauses(Plain())
