"""Record what ``autoload_all/0`` defines when the SWI engines start, on the
provisioned SWI-Prolog, in ``src/zpm_adapters/swi_common/autoloaded.json``:
a start on that version then defines those predicates directly instead of
walking all loaded code to find them (``zpm_init/4``).

Usage::

    .venv/bin/python tools/record_swi_autoload.py

Run it after changing the support files or the SWI-Prolog version that
``scripts/provision-swi`` installs; ``tests/engine_swi/test_autoload_record.py``
fails while the record is stale.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from zpm_adapters import swi_env  # noqa: E402
from zpm_adapters.engine_janus.engine import JanusBinding  # noqa: E402
from zpm_adapters.swi_common.engine import AUTOLOADED, Autoloaded, load_support  # noqa: E402


def autoloaded_now() -> Autoloaded:
    """What ``autoload_all/0`` defines at a start of the provisioned SWI-Prolog."""
    found = swi_env.activate(binding="janus_swi")
    if isinstance(found, swi_env.NotProvisioned):
        raise SystemExit(found.message())
    binding = JanusBinding(importlib.import_module("janus_swi"), found)
    load_support(binding, Autoloaded())  # no version is 0: autoload_all/0 runs
    answer = binding.once("zpm_support:autoloaded_now(Ps), current_prolog_flag(version, V)", {})
    assert answer is not None
    predicates = tuple((str(m), str(n), int(a)) for m, n, a in answer["Ps"])
    return Autoloaded(int(answer["V"]), predicates)


def main() -> None:
    AUTOLOADED.write_text(autoloaded_now().text(), encoding="utf-8")
    print(f"wrote {AUTOLOADED.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
