"""The Prolog-source library (``library.pl``, and the proof interpreters of
``zpm_adapters/prolog/zpm_proofs.pl`` with ``proofs.pl``), loaded once per process.

The clauses are read by the domain reader and compiled into one hidden
namespace, :data:`SYSTEM_NAME`, that every :class:`PythonEngine` shares (it
never changes after loading).  Its predicates are reached from user
namespaces only through names on the allow-list; auxiliary ones stay private.
"""

from __future__ import annotations

from importlib import resources

from zpm_adapters import prolog as shared
from zpm_adapters.engine_python import builtins as _builtins  # noqa: F401  (registers BUILTINS)
from zpm_adapters.engine_python import control as _control  # noqa: F401  (between/3, repeat/0)
from zpm_adapters.engine_python import proof_tables as _proof_tables  # noqa: F401  (registers INTERNAL)
from zpm_adapters.engine_python import proofs as _proofs  # noqa: F401  (registers INTERNAL)
from zpm_adapters.engine_python.cclause import compile_clause
from zpm_adapters.engine_python.store import Namespace
from zpm_domain.prolog.reader import read_clauses
from zpm_domain.stored.clauses import Clause

SYSTEM_NAME = "$system"

_system: Namespace | None = None


def system_namespace() -> Namespace:
    """The loaded library namespace (read and compiled on first use)."""
    global _system
    if _system is None:
        _system = _load()
    return _system


def library_source() -> str:
    return resources.files(__package__).joinpath("library.pl").read_text(encoding="utf-8")


def _sources() -> list[tuple[str, str]]:
    """``(name, text)`` of every file the library namespace compiles: the list
    library, the shared proof interpreters and this engine's part of them."""
    own = resources.files(__package__)
    return [
        ("library.pl", library_source()),
        (shared.PROOFS_FILE, shared.source(shared.PROOFS_FILE)),
        ("proofs.pl", own.joinpath("proofs.pl").read_text(encoding="utf-8")),
    ]


_APPLY = {"maplist_", "foldl_", "include_", "exclude_", "partition_"}
_SORT = {"predsort", "predmerge", "predmerge_"}


def _module_of(name: str) -> str:
    """The SWI-Prolog library module that defines ``name`` (for error contexts)."""
    return "apply" if name in _APPLY else "sort" if name in _SORT else "lists"


def _load() -> Namespace:
    ns = Namespace(SYSTEM_NAME, system=True)
    for name, text in _sources():
        for item in read_clauses(text):
            if item.term is None:
                raise RuntimeError(f"{name} line {item.line}: {item.error}")
            clause = Clause.from_term(item.term)
            pred = ns.define(*clause.key)
            pred.static = True
            owner = (_module_of(clause.key[0]), *clause.key)
            pred.add(compile_clause(clause, ns, ns, owner), front=False)
    return ns
