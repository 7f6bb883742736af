"""Group commit on files: HTTP writers on one server, with and without it.

One ``zpm serve --http --stateless`` on a project kept in files (python
engine), ``remember_fact`` from 1 and from ``--clients`` clients for
``--seconds`` each, in four variants run one after the other:

* ``group``: as zpm runs (calls queued together share their journal's
  ``fsync``, ``zpm_adapters/files/file_group.py``);
* ``alone``: each call's batch fsynced on its own (the server's files
  storage offers no group, as before it existed);
* both again with every ``fsync`` of the server ``--fsync-delay`` ms
  slower, standing for a disk slower than this machine's (a network
  volume, a disk without a write cache).

The variants other than ``group`` change the server process through a
``sitecustomize`` module on its ``PYTHONPATH``; nothing of zpm has a switch
for them.  Printed: writes/s, the median latency, the share of the CPUs
busy, and for each variant the rate of many clients as a multiple of one
client's, and ``group`` against ``alone``.

    python benchmarks/file_group.py [--clients N] [--seconds S] [--fsync-delay MS]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from shared import servers, writes  # noqa: E402

ALONE = """
from zpm_adapters.files import file_storage
file_storage.FileRegistry.write_group = lambda self: None
"""

SLOW_FSYNC = """
import os, time
_fsync = os.fsync
def _slower(fd, _delay={delay}):
    _fsync(fd)
    time.sleep(_delay)
os.fsync = _slower
"""


def variant_path(root: Path, name: str, source: str) -> str:
    """A folder holding ``sitecustomize.py`` with ``source``, for ``PYTHONPATH``."""
    folder = root / name
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(source)
    return str(folder)


def use_python_path(value: str | None) -> None:
    """Set (or, given ``None``, remove) ``PYTHONPATH`` for the servers started next."""
    if value is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--fsync-delay", type=float, default=2.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="zpm-file-group-") as tmp:
        root = Path(tmp)
        slow = SLOW_FSYNC.format(delay=args.fsync_delay / 1000)
        variants = {
            "group": None,
            "alone": variant_path(root, "alone", ALONE),
            f"group, fsync +{args.fsync_delay:g} ms": variant_path(root, "slow", slow),
            f"alone, fsync +{args.fsync_delay:g} ms": variant_path(
                root, "slow-alone", slow + ALONE
            ),
        }
        rates: dict[str, dict[int, float]] = {}
        before = os.environ.get("PYTHONPATH")
        print(f"{'variant':28} clients   writes/s   p50 ms   busy   x one client")
        for index, (name, path) in enumerate(variants.items()):
            joined = None if path is None else os.pathsep.join(filter(None, [path, before]))
            use_python_path(before if joined is None else joined)
            rates[name] = {}
            for clients in (1, args.clients):
                with servers(1, [], root / f"v{index}-{clients}") as running:
                    got = writes([s.port for s in running], clients, args.seconds, f"c{clients}")
                rates[name][clients] = got["rate"]
                print(
                    f"{name:28} {clients:7} {got['rate']:10.1f} {got['p50']:8.1f}"
                    f" {got['busy']:6.0%} {got['rate'] / rates[name][1]:10.2f}",
                    flush=True,
                )
        use_python_path(before)
    names = list(variants)
    for group, alone in ((names[0], names[1]), (names[2], names[3])):
        ratio = rates[group][args.clients] / rates[alone][args.clients]
        print(f"{args.clients} clients, {group} against {alone}: x{ratio:.2f}")


if __name__ == "__main__":
    main()
