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
# long lists go as one JSON text (ffi.LONG_LIST): the same values come back
odd = ["", "'", '"', "\\", "a\x00b", "\n\t\r\b\f\x01\x7f", "\u2028\u00e9\u4e16\U0001f600",
       "[1, 2]", "X", "_", "true", "null", "/* c */", "% c", "0'a"]
nums = [0, -5, 2**63, -(2**64), 10**30, 1.5, -0.0, 1e300, 5e-324, 1e16, 2.0**-1074, 123456789.0]
long_list = [odd * 5, nums * 6, [[str(i), i] for i in range(100)], odd + nums]
assert all(len(x) >= 16 for x in long_list[:3])
got = b.once("X = Y", {"Y": long_list})
assert got is not None and got["X"] == long_list, got
assert math.copysign(1.0, got["X"][1][6]) == -1.0
# what JSON cannot carry exactly goes item by item
for special in ([math.inf, -math.inf] * 40, [10**5000] * 70):
    got = b.once("X = Y, length(X, N)", {"Y": special})
    assert got is not None and got["N"] == len(special), special[:1]
    assert got["X"][:2] == special[:2], got["X"][:2]
got = b.once("X = Y", {"Y": [math.nan] * 70})
assert got is not None and all(math.isnan(x) for x in got["X"])
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
