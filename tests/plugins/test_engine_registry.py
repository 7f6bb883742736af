"""The engine registry in-process: built-ins, plugins, errors, selection."""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

import pytest

from plugins.support import EXAMPLE_ENGINE
from zpm_adapters.engine_python.engine import PythonEngine
from zpm_app import engines
from zpm_app.engines import (
    Availability,
    EngineRecord,
    EngineUnavailable,
    PluginError,
    UnknownEngine,
    create_engine,
)
from zpm_app.plugins.builtin_engines import JANUS_FIX, swi_probe
from zpm_app.plugins.manager import collect_records, load_engine_records, plugin_manager
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
    manager, labels = plugin_manager(NO_PLUGINS)
    for index, plugin in enumerate(plugins):
        name = f"test{index}"
        manager.register(plugin, name=name)
        labels[name] = f"plugin '{name}'"
    return manager, labels


def _plugin(code: str) -> object:
    namespace: dict[str, object] = {}
    header = "from zpm_app.plugins.hookspecs import hookimpl\n"
    exec(header + textwrap.dedent(code), namespace)  # a plugin object, as a module would be

    class Plugin:
        zpm_register_engines = staticmethod(namespace["zpm_register_engines"])  # type: ignore[arg-type]

    return Plugin


def test_a_duplicate_engine_name_names_both_plugins() -> None:
    manager, labels = _manager_with(
        _plugin("""
        @hookimpl
        def zpm_register_engines(register):
            register("python", lambda: None)
        """)
    )
    with pytest.raises(PluginError) as caught:
        collect_records(manager, labels)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "Engine 'python' is registered twice: by zpm (built-in) and by plugin 'test0'"
    )


@pytest.mark.parametrize("name", ["auto", "", "two words", 7])
def test_invalid_engine_names_are_refused(name: object) -> None:
    manager, labels = _manager_with(
        _plugin(f"""
        @hookimpl
        def zpm_register_engines(register):
            register({name!r}, lambda: None)
        """)
    )
    with pytest.raises(PluginError, match="plugin 'test0' registered an invalid engine name"):
        collect_records(manager, labels)  # type: ignore[arg-type]


def test_a_failing_hook_is_reported_with_its_plugin() -> None:
    manager, labels = _manager_with(
        _plugin("""
        @hookimpl
        def zpm_register_engines(register):
            raise RuntimeError("boom")
        """)
    )
    with pytest.raises(PluginError) as caught:
        collect_records(manager, labels)  # type: ignore[arg-type]
    assert str(caught.value) == "plugin 'test0' failed to register its engines: RuntimeError: boom"


def test_a_plugin_that_cannot_be_imported_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_plugin(tmp_path, "zpm_broken_plugin", "import no_such_module_zpm\n", "broken")
    monkeypatch.syspath_prepend(str(root))
    with pytest.raises(PluginError, match=r"plugin 'broken' \(zpm_broken_plugin 0.1\) failed"):
        load_engine_records({})


def _use_records(monkeypatch: pytest.MonkeyPatch, *records: EngineRecord) -> None:
    monkeypatch.setattr(engines, "_records", list(records))


def _record(name: str, factory: object, probe: object = None, priority: int = 0) -> EngineRecord:
    return EngineRecord(name, "", "plugin 'test'", factory, probe, priority)  # type: ignore[arg-type]


def test_create_engine_by_name_and_the_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = Availability(False, reason="no SWI here", fix="install it")
    _use_records(
        monkeypatch,
        _record("mine", PythonEngine),
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
        "Unknown engine: nope (available: mine, gone, broken, auto; see `zpm engines`)"
    )


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
        _record("later", PythonEngine, None, 50),
    )
    assert type(create_engine("auto")) is Plugged
    assert engines.engines_report(engines.engine_records()).endswith("auto selects: plugged")


def test_auto_without_any_engine_that_loads_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    _use_records(
        monkeypatch, _record("gone", PythonEngine, lambda: Availability(False, reason="x"))
    )
    with pytest.raises(EngineUnavailable, match="Engine auto is not available: gone: x"):
        create_engine("auto")


def test_the_builtin_priorities_prefer_janus_then_pyswip_then_python() -> None:
    records = load_engine_records(NO_PLUGINS)
    assert [r.name for r in engines.by_priority(records)] == ["janus", "pyswip", "python"]


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


def test_report_shows_reason_fix_and_the_auto_choice() -> None:
    records = [
        _record("janus", PythonEngine, lambda: Availability(False, reason="absent", fix="do X")),
        _record("python", PythonEngine, lambda: Availability(True, version="v1")),
        _record("other", PythonEngine),
    ]
    assert engines.engines_report(records).splitlines() == [
        "janus: unavailable",
        "  from plugin 'test'",
        "  reason: absent",
        "  fix: do X",
        "python: available, version v1",
        "  from plugin 'test'",
        f"other: available, version {PythonEngine().version()}",
        "  from plugin 'test'",
        "auto selects: python",
    ]


def test_the_python_engine_is_created_from_its_record_like_any_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Replaced(PythonEngine):
        pass

    _use_records(monkeypatch, _record("python", Replaced))
    assert type(create_engine("python")) is Replaced
