"""A plugin written against the imports documented before ``zpm_plugin`` still
loads and runs, and zpm says, naming the plugin, where each moved name is now."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from plugins.support import piped_tool_call, plugin_env, run_zpm
from zpm_contract.plugin_site import write_plugin

pytestmark = pytest.mark.slow

EARLIER_PLUGIN = '''
"""An engine plugin as the guide of earlier releases wrote one."""

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_app.engines import OPTIONAL_CAPABILITIES, Availability
from zpm_app.plugins.hookspecs import EngineRegistrar, hookimpl
from zpm_domain.builtins import classify
from zpm_domain.clauses import Clause
from zpm_domain.store_rules import check_addition
from zpm_domain.terms import Atom, Struct


class EarlierEngine(PythonEngine):
    name = "earlier"

    def version(self) -> str:
        return "earlier 0.1"


@hookimpl
def zpm_register_engines(register: EngineRegistrar) -> None:
    assert "reasoning" in OPTIONAL_CAPABILITIES
    assert Clause(Struct("p", (Atom("a"),))).key == ("p", 1)
    assert callable(classify) and callable(check_addition)
    register(
        "earlier",
        EarlierEngine,
        probe=lambda: Availability(True, "earlier 0.1"),
        description="written against the earlier imports",
    )
'''

MOVED = (
    "zpm_app.engines.OPTIONAL_CAPABILITIES",
    "zpm_app.engines.Availability",
    "zpm_app.plugins.hookspecs",
    "zpm_domain.builtins",
    "zpm_domain.clauses",
    "zpm_domain.store_rules",
    "zpm_domain.terms",
)


def test_a_plugin_of_the_earlier_imports_loads_and_is_told_what_moved(tmp_path: Path) -> None:
    root = write_plugin(tmp_path / "site", "zpm_earlier_engine", EARLIER_PLUGIN, "earlier")
    env = plugin_env(root)
    done = run_zpm("engines", "--format", "json", env=env)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert listed["broken_plugins"] == []
    earlier = next(e for e in listed["engines"] if e["name"] == "earlier")
    assert earlier["available"] is True
    for name in MOVED:
        assert f"plugin earlier: {name} is deprecated" in done.stderr, done.stderr
    assert done.stderr.count("is deprecated") == len(MOVED), done.stderr

    project = tmp_path / "project"
    project.mkdir()
    assert run_zpm("init", env=env, cwd=project).returncode == 0
    text, served = piped_tool_call(project, env, "earlier", "remember_fact", {"fact": "p(a)"})
    assert text == "Asserted: p(a)", served.stderr
    text, _ = piped_tool_call(project, env, "earlier", "query_logic", {"goal": "p(X)"})
    assert text == '[{"X":"a"}]'


@pytest.mark.parametrize(
    ("module", "name", "now"),
    [
        ("zpm_domain.terms", "Struct", "zpm_domain.prolog.terms"),
        ("zpm_domain.clauses", "Clause", "zpm_domain.stored.clauses"),
        ("zpm_domain.store_rules", "check_addition", "zpm_domain.ports.store_checks"),
        ("zpm_domain.builtins", "classify", "zpm_domain.prolog.allowlist"),
        ("zpm_app.plugins.hookspecs", "hookimpl", "zpm_app.engines.hookspecs"),
    ],
)
def test_a_moved_module_is_the_same_names_with_a_warning(module: str, name: str, now: str) -> None:
    import importlib
    import sys

    sys.modules.pop(module, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        moved = importlib.import_module(module)
    assert getattr(moved, name) is getattr(importlib.import_module(now), name)
    assert [w.category for w in caught] == [DeprecationWarning]
    assert "zpm_plugin" in str(caught[0].message)


def test_a_moved_engine_name_is_the_registrys_with_a_warning() -> None:
    import zpm_app.engines
    from zpm_app.engines import registry

    vars(zpm_app.engines).pop("create_engine", None)
    with pytest.warns(DeprecationWarning, match=r"zpm_app\.engines\.create_engine"):
        found = zpm_app.engines.create_engine
    assert found is registry.create_engine
    with pytest.raises(AttributeError):
        zpm_app.engines.no_such_name  # noqa: B018
