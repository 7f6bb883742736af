"""The pyswip binding's value conversion, errors and threading, in a subprocess."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = r"""
import math, threading
from zpm_adapters.engine_pyswip.engine import PyswipEngine
e = PyswipEngine()
assert e.version() == "pyswip (SWI-Prolog 9.2.9)", e.version()
b = e._binding
data = [["a", 2**100], [-(2**70), 1.5, -0.0]]
got = b.once("X = Y, atom_length(A, L)", {"Y": data, "A": "h\u00e9\x00\u4e16"})
assert got is not None and got["L"] == 4 and got["X"] == [["a", 2**100], [-(2**70), 1.5, -0.0]], got
assert math.copysign(1.0, got["X"][1][2]) == -1.0
got = b.once("X is inf, Y is -inf, Z is nan, S = \"t\u00e9\", B is 3**80", {})
assert got is not None and got["X"] == math.inf and got["Y"] == -math.inf and math.isnan(got["Z"])
assert got["S"] == "t\u00e9" and got["B"] == 3**80, got
assert b.once("fail", {}) is None
try:
    b.once("atom_length(_X, _L)", {})
except RuntimeError as err:
    assert err.args[0] == "atom_length/2: Arguments are not sufficiently instantiated", err.args
else:
    raise AssertionError("no error")
got = b.once("findall(X, between(1, 1000000, X), L)", {})
assert got is not None and len(got["L"]) == 1000000 and got["L"][-1] == 1000000
results = []
def work(k):
    results.append(b.once("X is K * 2", {"K": k})["X"])
threads = [threading.Thread(target=work, args=(k,)) for k in range(20)]
for t in threads: t.start()
for t in threads: t.join()
assert sorted(results) == [2 * k for k in range(20)], results
print("OK")
"""


def test_pyswip_binding_values_errors_threads() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.strip() == "OK"
    assert "WARNING" not in done.stderr, done.stderr
