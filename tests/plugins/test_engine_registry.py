"""The engine registry in-process: built-ins, plugins, broken plugins, selection."""

from __future__ import annotations

import logging
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from plugins.support import EXAMPLE_ENGINE
from zpm_adapters.engine_python.engine import PythonEngine
from zpm_app.bootstrap.builtin_engines import JANUS_FIX, swi_probe
from zpm_app.engines import registry, report
from zpm_app.engines.plugins import (
    collect_records,
    load_engine_records,
    load_plugins,
    plugin_manager,
)
from zpm_app.engines.registry import (
    Availability,
    EngineRecord,
    EngineUnavailable,
    PluginError,
    PluginProblem,
    UnknownEngine,
    create_engine,
)
from zpm_contract.plugin_site import write_plugin

NO_PLUGINS = {"ZPM_LOAD_PLUGINS": ""}


def test_builtins_register_through_the_hook_in_auto_order() -> None:
    records = load_engine_records(NO_PLUGINS)
    assert [(r.name, r.plugin) for r in records] == [
        ("janus", "zpm (built-in)"),
        ("pyswip", "zpm (built-in)"),
        ("python", "zpm (built-in)"),
    ]
    assert isinstance(records[2].factory(), PythonEngine)
    assert records[2].availability().available


def test_an_entry_point_plugin_registers_after_the_builtins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = EXAMPLE_ENGINE.replace('"example"', '"example_inproc"')
    root = write_plugin(tmp_path, "zpm_example_inproc", source, "inproc")
    monkeypatch.syspath_prepend(str(root))
    records = load_engine_records({})
    assert [r.name for r in records][-1] == "example_inproc"
    assert records[-1].plugin == "plugin 'inproc' (zpm_example_inproc 0.1)"
    assert load_engine_records({"ZPM_LOAD_PLUGINS": "inproc"})[-1].name == "example_inproc"
    assert "example_inproc" not in [r.name for r in load_engine_records(NO_PLUGINS)]


def _manager_with(*plugins: object) -> tuple[object, dict[str, str]]:
    manager, labels, problems = plugin_manager(NO_PLUGINS)
    assert problems == []
    for index, plugin in enumerate(plugins):
        name = f"test{index}"
        manager.register(plugin, name=name)
        labels[name] = f"plugin '{name}'"
    return manager, labels


def _collect(*plugins: object) -> tuple[list[EngineRecord], list[PluginProblem]]:
    manager, labels = _manager_with(*plugins)
    return collect_records(manager, labels)  # type: ignore[arg-type]


def _plugin(code: str) -> object:
    namespace: dict[str, object] = {}
    header = "from zpm_plugin import hookimpl\n"
    exec(header + textwrap.dedent(code), namespace)  # a plugin object, as a module would be

    class Plugin:
        zpm_register_engines = staticmethod(namespace["zpm_register_engines"])  # type: ignore[arg-type]

    return Plugin


def test_a_duplicate_engine_name_keeps_the_first_and_reports_the_second() -> None:
    records, problems = _collect(
        _plugin("""
        @hookimpl
        def zpm_register_engines(register):
            register("python", lambda: None)
        """)
    )
    assert [(r.name, r.plugin) for r in records if r.name == "python"] == [
        ("python", "zpm (built-in)")
    ]
    assert problems == [
        PluginProblem(
            "plugin 'test0'",
            "test0",
            "registered engine 'python', which zpm (built-in) registered first",
            ("python",),
        )
    ]


def test_a_plugin_with_one_bad_registration_is_left_out_as_a_whole() -> None:
    records, problems = _collect(
        _plugin("""
        @hookimpl
        def zpm_register_engines(register):
            register("mine", lambda: None)
            try:
                register("python", lambda: None)
            except Exception:
                pass  # swallowing the error does not keep the plugin in
            register("later", lambda: None)
        """)
    )
    assert [r.name for r in records] == ["janus", "pyswip", "python"]
    assert [(p.plugin, p.engines) for p in problems] == [
        ("plugin 'test0'", ("mine", "python", "later"))
    ]


@pytest.mark.parametrize("name", ["auto", "", "two words", 7])
def test_invalid_engine_names_are_refused(name: object) -> None:
    records, problems = _collect(
        _plugin(f"""
        @hookimpl
        def zpm_register_engines(register):
            register({name!r}, lambda: None)
        """)
    )
    assert [r.name for r in records] == ["janus", "pyswip", "python"]
    assert [str(p) for p in problems] == [
        f"plugin 'test0': registered an invalid engine name: {name!r}"
    ]


def test_a_failing_hook_is_reported_with_its_plugin() -> None:
    records, problems = _collect(
        _plugin("""
        @hookimpl
        def zpm_register_engines(register):
            register("early", lambda: None)
            raise RuntimeError("boom")
        """)
    )
    assert "early" not in [r.name for r in records]
    assert problems == [
        PluginProblem(
            "plugin 'test0'",
            "test0",
            "failed to register its engines: RuntimeError: boom",
            ("early",),
        )
    ]


def test_a_hook_that_registers_nothing_is_reported() -> None:
    _, problems = _collect(
        _plugin("""
        @hookimpl
        def zpm_register_engines(register):
            pass
        """)
    )
    assert [p.problem for p in problems] == [
        "registers no engine: its zpm_register_engines never calls register"
    ]


def test_a_plugin_without_hookimpl_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    source = "def zpm_register_engines(register):\n    register('plain', object)\n"
    root = write_plugin(tmp_path, "zpm_plain_plugin", source, "plain")
    monkeypatch.syspath_prepend(str(root))
    with caplog.at_level(logging.WARNING, logger="zpm"):
        loaded = load_plugins({"ZPM_LOAD_PLUGINS": "plain"})
    assert [r.name for r in loaded.records] == ["janus", "pyswip", "python"]
    assert [str(p) for p in loaded.problems] == [
        "plugin 'plain' (zpm_plain_plugin 0.1): registers no engine: it has no "
        "zpm_register_engines marked as a hook (is the function decorated with "
        "@hookimpl from zpm_plugin?)"
    ]
    assert caplog.messages == [
        "plugin 'plain' (zpm_plain_plugin 0.1) is left out: registers no engine: it has no "
        "zpm_register_engines marked as a hook (is the function decorated with "
        "@hookimpl from zpm_plugin?)"
    ]


def test_a_plugin_that_cannot_be_imported_is_named_and_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = write_plugin(tmp_path, "zpm_broken_plugin", "import no_such_module_zpm\n", "broken")
    monkeypatch.syspath_prepend(str(root))
    with caplog.at_level(logging.WARNING, logger="zpm"):
        loaded = load_plugins({"ZPM_LOAD_PLUGINS": "broken"})
    assert [r.name for r in loaded.records] == ["janus", "pyswip", "python"]
    assert loaded.problems == [
        PluginProblem(
            "plugin 'broken' (zpm_broken_plugin 0.1)",
            "broken",
            "cannot be imported: ModuleNotFoundError: No module named 'no_such_module_zpm'",
        )
    ]
    assert caplog.messages == [
        "plugin 'broken' (zpm_broken_plugin 0.1) is left out: cannot be imported: "
        "ModuleNotFoundError: No module named 'no_such_module_zpm'"
    ]


def test_a_misspelled_hook_leaves_the_plugin_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = EXAMPLE_ENGINE.replace('"example"', '"typo_engine"') + (
        "\n\n@hookimpl\ndef zpm_register_engine(register):\n    pass\n"
    )
    root = write_plugin(tmp_path, "zpm_typo_inproc", source, "typo")
    monkeypatch.syspath_prepend(str(root))
    loaded = load_plugins({"ZPM_LOAD_PLUGINS": "typo"})
    assert [r.name for r in loaded.records] == ["janus", "pyswip", "python"]
    assert [p.problem for p in loaded.problems] == [
        "implements unknown hook 'zpm_register_engine' (zpm's hooks: zpm_register_engines)"
    ]


class Named(PythonEngine):
    name = "named"


def test_an_engine_class_named_otherwise_is_refused_at_registration() -> None:
    records, problems = _collect(
        _plugin(
            """
        from tests_named import Named

        @hookimpl
        def zpm_register_engines(register):
            register("other", Named)
        """.replace("from tests_named import Named", f"from {__name__} import Named")
        )
    )
    assert "other" not in [r.name for r in records]
    assert [str(p) for p in problems] == [
        "plugin 'test0': registered engine 'other' as Named, whose name is 'named': the names "
        "must agree (register it as 'named' or set Named.name = 'other')"
    ]


def test_an_engine_built_by_a_function_and_named_otherwise_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _use_records(monkeypatch, _record("other", lambda: Named()))
    with pytest.raises(PluginError) as caught:
        create_engine("other")
    assert str(caught.value) == (
        "plugin 'test' registered engine 'other' as Named, whose name is 'named': the names "
        "must agree (register it as 'named' or set Named.name = 'other')"
    )
    assert registry.engine_records()[0].availability() == Availability(
        False, reason=str(caught.value)
    )


def test_lacks_declares_optional_capabilities() -> None:
    records, problems = _collect(
        _plugin("""
        @hookimpl
        def zpm_register_engines(register):
            register("partial", lambda: None, lacks=("reasoning", "interrupt"))
            register("whole", lambda: None)
        """)
    )
    assert problems == []
    lacks = {r.name: r.lacks for r in records}
    assert lacks["partial"] == frozenset({"reasoning", "interrupt"})
    assert lacks["whole"] == frozenset() == lacks["python"]


@pytest.mark.parametrize(
    ("lacks", "problem"),
    [
        (
            '("reasoning", "persistence")',
            "registered engine 'partial' lacking unknown capabilities 'persistence' "
            "(known: bulk_load, hypotheses, interrupt, reach, reasoning, time_limit)",
        ),
        (
            '"reasoning"',
            "registered engine 'partial' with lacks='reasoning': give a tuple of "
            "(bulk_load, hypotheses, interrupt, reach, reasoning, time_limit)",
        ),
    ],
)
def test_lacks_names_only_optional_capabilities(lacks: str, problem: str) -> None:
    records, problems = _collect(
        _plugin(f"""
        @hookimpl
        def zpm_register_engines(register):
            register("partial", lambda: None, lacks={lacks})
        """)
    )
    assert "partial" not in [r.name for r in records]
    assert [p.problem for p in problems] == [problem]


def _use_records(
    monkeypatch: pytest.MonkeyPatch,
    *records: EngineRecord,
    problems: tuple[PluginProblem, ...] = (),
) -> None:
    monkeypatch.setattr(registry, "_records", list(records))
    monkeypatch.setattr(registry, "_problems", list(problems))


def _record(name: str, factory: object, probe: object = None, priority: int = 0) -> EngineRecord:
    return EngineRecord(name, "", "plugin 'test'", factory, probe, priority)  # type: ignore[arg-type]


def _engine_class(name: str) -> type[PythonEngine]:
    return type(f"Engine_{name}", (PythonEngine,), {"name": name})


def test_create_engine_by_name_and_the_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = Availability(False, reason="no SWI here", fix="install it")
    _use_records(
        monkeypatch,
        _record("mine", _engine_class("mine")),
        _record("gone", PythonEngine, lambda: missing),
        _record("broken", lambda: 1 / 0),
    )
    assert isinstance(create_engine("mine"), PythonEngine)
    with pytest.raises(EngineUnavailable) as caught:
        create_engine("gone")
    assert str(caught.value) == "Engine gone is not available: no SWI here. install it"
    with pytest.raises(EngineUnavailable, match="loading failed: ZeroDivisionError"):
        create_engine("broken")
    with pytest.raises(UnknownEngine) as unknown:
        create_engine("nope")
    assert str(unknown.value) == (
        "Unknown engine: nope (available: mine, auto; unavailable: gone (no SWI here), "
        "broken (ZeroDivisionError: division by zero); see `zpm engines`)"
    )


def test_unknown_engine_says_where_the_name_came_from_and_which_plugins_are_broken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = PluginProblem("plugin 'typo' (zpm_typo 0.1)", "typo", "cannot be imported: X")
    _use_records(monkeypatch, _record("python", PythonEngine), problems=(broken,))
    with pytest.raises(UnknownEngine) as unknown:
        create_engine("nope", "ZPM_ENGINE")
    assert str(unknown.value) == (
        "Unknown engine: nope (from ZPM_ENGINE; available: python, auto; "
        "broken plugins: plugin 'typo' (zpm_typo 0.1); see `zpm engines`)"
    )


@pytest.mark.parametrize("name", ["typo", "typo_engine"])
def test_an_engine_of_a_broken_plugin_is_refused_with_the_problem(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    broken = PluginProblem(
        "plugin 'typo' (zpm_typo 0.1)",
        "typo",
        "failed to register its engines: X",
        ("typo_engine",),
    )
    _use_records(monkeypatch, _record("python", PythonEngine), problems=(broken,))
    with pytest.raises(PluginError) as caught:
        create_engine(name, "--engine")
    assert str(caught.value) == (
        f"Engine {name} (from --engine) would come from plugin 'typo' (zpm_typo 0.1), "
        "which is broken: failed to register its engines: X"
    )
    assert isinstance(create_engine("python"), PythonEngine)


def test_auto_falls_back_when_an_available_engine_does_not_load(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _use_records(
        monkeypatch,
        _record("python", PythonEngine, lambda: Availability(True), 10),
        _record("janus", lambda: 1 / 0, lambda: Availability(True), 30),
        _record("pyswip", PythonEngine, lambda: Availability(False, reason="absent"), 20),
    )
    with caplog.at_level(logging.WARNING, logger="zpm"):
        engine = create_engine("auto")
    assert type(engine) is PythonEngine
    assert "auto: Engine janus is not available: loading failed" in caplog.text
    assert "pyswip" not in caplog.text


def test_auto_picks_the_available_engine_of_highest_priority(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Plugged(PythonEngine):
        name = "plugged"

    _use_records(
        monkeypatch,
        _record("python", PythonEngine, lambda: Availability(True), 10),
        _record("plugged", Plugged, None, 50),
        _record("later", _engine_class("later"), None, 50),
    )
    assert type(create_engine("auto")) is Plugged
    assert report.engines_report(registry.engine_records()).endswith("auto selects: plugged")


def test_auto_passes_over_an_engine_named_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    _use_records(
        monkeypatch,
        _record("python", PythonEngine, None, 10),
        _record("wrong", lambda: PythonEngine(), None, 50),
    )
    assert type(create_engine("auto")) is PythonEngine


def test_auto_without_any_engine_that_loads_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    _use_records(
        monkeypatch, _record("gone", PythonEngine, lambda: Availability(False, reason="x"))
    )
    with pytest.raises(EngineUnavailable, match="Engine auto is not available: gone: x"):
        create_engine("auto")


def test_the_builtin_priorities_prefer_janus_then_pyswip_then_python() -> None:
    records = load_engine_records(NO_PLUGINS)
    assert [r.name for r in registry.by_priority(records)] == ["janus", "pyswip", "python"]


def test_swi_probe_reports_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    absent = swi_probe("zpm_no_such_adapter", "json", "janus-swi", JANUS_FIX)
    assert absent == Availability(
        False, reason="not installed (zpm_no_such_adapter is missing)", fix=JANUS_FIX
    )
    (tmp_path / "zpm_fake_adapter_ok.py").write_text("def probe():\n    return 'swi 9.2.9'\n")
    (tmp_path / "zpm_fake_adapter_bad.py").write_text(
        "def probe():\n    raise RuntimeError('SWI-Prolog 9.0.4 is too old')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    no_binding = swi_probe("zpm_fake_adapter_ok", "zpm_no_binding", "janus-swi", JANUS_FIX)
    assert no_binding.reason == "not installed (the janus-swi package)"
    assert swi_probe("zpm_fake_adapter_ok", "json", "janus-swi", JANUS_FIX) == Availability(
        True, version="swi 9.2.9"
    )
    too_old = swi_probe("zpm_fake_adapter_bad", "json", "janus-swi", JANUS_FIX)
    assert too_old == Availability(False, reason="SWI-Prolog 9.0.4 is too old", fix=JANUS_FIX)


def test_report_shows_reason_fix_lacks_broken_plugins_and_the_auto_choice() -> None:
    records = [
        _record("janus", PythonEngine, lambda: Availability(False, reason="absent", fix="do X")),
        _record("python", PythonEngine, lambda: Availability(True, version="v1")),
        replace(
            _record("other", _engine_class("other")), lacks=frozenset({"reasoning", "interrupt"})
        ),
    ]
    broken = PluginProblem("plugin 'typo' (zpm_typo 0.1)", "typo", "cannot be imported: X", ())
    assert report.engines_report(records, [broken]).splitlines() == [
        "janus: unavailable",
        "  from plugin 'test'",
        "  reason: absent",
        "  fix: do X",
        "python: available, version v1",
        "  from plugin 'test'",
        f"other: available, version {PythonEngine().version()}",
        "  from plugin 'test'",
        "  lacks: interrupt, reasoning",
        "plugin 'typo' (zpm_typo 0.1): broken, left out",
        "  reason: cannot be imported: X",
        "auto selects: python",
    ]
    value = report.engines_value(records, [broken])
    assert [entry["lacks"] for entry in value["engines"]] == [[], [], ["interrupt", "reasoning"]]
    assert value["broken_plugins"] == [
        {
            "plugin": "plugin 'typo' (zpm_typo 0.1)",
            "name": "typo",
            "reason": "cannot be imported: X",
            "engines": [],
        }
    ]
    assert value["auto"] == "python"


def test_the_python_engine_is_created_from_its_record_like_any_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Replaced(PythonEngine):
        pass

    _use_records(monkeypatch, _record("python", Replaced))
    assert type(create_engine("python")) is Replaced
