"""The built-in predicates of the python engine.

Importing this package registers every built-in into
:data:`zpm_adapters.engine_python.runtime.BUILTINS`.
"""

from zpm_adapters.engine_python.builtins import (  # noqa: F401
    arith_preds,
    atoms,
    compare,
    cycles,
    format,
    lists,
    numbervars,
    numtext,
    sorting,
    strings,
    subtext,
    terms,
    unification,
)
