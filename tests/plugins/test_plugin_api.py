"""The plugin API stays put: ``zpm_plugin`` offers what ``plugin_api.json`` records.

A name gone or a signature changed breaks the plugins that use it, so the
test fails; such a change needs the old name kept working with a
``DeprecationWarning`` first.  A name added fails too, until it is recorded
(``tools/record_plugin_api.py``), so that the record is the whole API.
"""

from __future__ import annotations

import json
from typing import Any

from tools.record_plugin_api import RECORD, describe


def _recorded() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(RECORD.read_text(encoding="utf-8"))
    return found


def test_every_recorded_name_is_offered_with_its_signature() -> None:
    now, recorded = describe(), _recorded()
    gone = sorted(set(recorded) - set(now))
    assert not gone, f"zpm_plugin no longer offers {gone}: plugins importing them break"
    changed = sorted(name for name in recorded if now[name] != recorded[name])
    assert not changed, (
        f"the API of {changed} changed: keep the recorded form working (with a "
        "DeprecationWarning for a release) and record the new one"
    )


def test_every_offered_name_is_recorded() -> None:
    added = sorted(set(describe()) - set(_recorded()))
    assert not added, f"record {added}: .venv/bin/python tools/record_plugin_api.py"


def test_a_plugin_gets_everything_from_one_module() -> None:
    import zpm_plugin

    offered = set(zpm_plugin.__all__)
    assert {"Engine", "Clause", "Struct", "Limits", "hookimpl", "EngineRegistrar"} <= offered
    assert all(hasattr(zpm_plugin, name) for name in offered)


def test_the_record_notices_a_changed_signature(monkeypatch: Any) -> None:
    import zpm_plugin

    def make_list(items: Any) -> Any:  # the tail parameter gone
        return items

    monkeypatch.setattr(zpm_plugin, "make_list", make_list)
    assert describe()["make_list"] != _recorded()["make_list"]
