"""The SWI engines define the recorded predicates instead of walking all code
(``swi_common/autoloaded.json``, ``zpm_init/4``), and end where the walk ends."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RECORDED = r"""
import sys
sys.path.insert(0, sys.argv[1])
from record_swi_autoload import autoloaded_now
print(autoloaded_now().text(), end="")
"""

STATE = r"""
import importlib, json, sys
from zpm_adapters import swi_env
from zpm_adapters.engine_janus.engine import JanusBinding
from zpm_adapters.swi_common.engine import Autoloaded, load_support
found = swi_env.activate(binding="janus_swi")
binding = JanusBinding(importlib.import_module("janus_swi"), found)
load_support(binding, None if sys.argv[1] == "record" else Autoloaded())
# A system predicate that a module's running code called is cached in that
# module (the walk runs code that the record's start does not): left out.
answer = binding.once(
    "findall(_F, source_file(_F), Fs), current_prolog_flag(autoload, A),"
    " findall(_M, current_module(_M), Ms),"
    " findall([_M2, _From, _N, _Ar], (current_module(_M2),"
    "   predicate_property(_M2:_H, imported_from(_From)),"
    "   \\+ module_property(_From, class(system)), functor(_H, _N, _Ar)), Is),"
    " findall([_M3, _N3, _A3], (current_module(_M3), current_predicate(_M3:_N3/_A3),"
    "   functor(_H3, _N3, _A3), \\+ predicate_property(system:_H3, defined)), Ds)",
    {},
)
print(json.dumps({"files": sorted(answer["Fs"]), "autoload": answer["A"],
                  "modules": sorted(answer["Ms"]), "imports": sorted(answer["Is"]),
                  "defined": sorted(answer["Ds"])}))
"""


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def test_the_record_is_what_autoload_all_defines_on_the_provisioned_version() -> None:
    recorded = (ROOT / "src/zpm_adapters/swi_common/autoloaded.json").read_text(encoding="utf-8")
    assert run(RECORDED, str(ROOT / "tools")) == recorded, (
        "the SWI autoload record is stale: run .venv/bin/python tools/record_swi_autoload.py"
    )


def test_a_start_from_the_record_ends_where_autoload_all_ends() -> None:
    walked = json.loads(run(STATE, "walk"))
    loaded = json.loads(run(STATE, "record"))
    assert loaded["autoload"] == walked["autoload"] == "false"
    for part in ("files", "modules", "imports", "defined"):
        assert loaded[part] == walked[part], part
    assert len(loaded["imports"]) > 500
