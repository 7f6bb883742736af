"""Everything an engine plugin imports: ``from zpm_plugin import Engine, hookimpl, ...``.

This module is zpm's public API for plugin authors, and it stays put: a
name listed in ``__all__`` keeps its meaning and its signature, and when one
must move or change, the old one keeps working with a ``DeprecationWarning``
for at least one release (``tests/plugins/test_plugin_api.py`` holds the
recorded API and fails on any other change).  The modules these names come
from are zpm's own and move freely: import from here.

What is here (``docs/writing-an-engine-plugin.md`` is the guide):

* the engine: :class:`Engine`, the base class of every engine, and what its
  methods exchange: :data:`Lookup` and :class:`PredicateState` (what the
  checks ask an engine about a predicate), :data:`Refusals`;
* terms: :class:`Atom`, :class:`String`, :class:`Var`, :class:`Struct`,
  :data:`Term` (with ``int`` and ``float``), :data:`NIL`, :func:`make_list`,
  :func:`list_items`, :func:`variables`, :func:`variant`;
* clauses: :class:`Clause`, :class:`PredicateInfo`;
* solving: :class:`Limits`, :data:`Solution`, :func:`answered_variables`,
  :class:`ProofStep`;
* errors: :class:`ZpmError` and the ones an engine raises
  (:class:`PrologError`, :class:`PermissionDenied`, :class:`MemoryNotMounted`,
  :class:`Interrupted`, :class:`EngineUnsupported`, the limits);
* registering: :data:`hookimpl`, :class:`EngineRegistrar`,
  :class:`Availability`, :data:`OPTIONAL_CAPABILITIES`; and
  :func:`create_engine`, any registered engine by name (an engine that
  builds on another one).
"""

from __future__ import annotations

from zpm_app.engines.hookspecs import EngineRegistrar, hookimpl
from zpm_app.engines.records import OPTIONAL_CAPABILITIES, Availability
from zpm_app.engines.registry import create_engine
from zpm_domain.errors import (
    AnswersTooLarge,
    BudgetExceeded,
    CyclicAnswer,
    DepthLimitExceeded,
    EngineUnsupported,
    InferenceLimitExceeded,
    IntegerTooLarge,
    Interrupted,
    LimitExceeded,
    MemoryLimitExceeded,
    MemoryNotMounted,
    ResourceLimitExceeded,
    TimeLimitExceeded,
    ZpmError,
)
from zpm_domain.limits import Limits
from zpm_domain.ports.engine import Engine, Lookup, Refusals
from zpm_domain.ports.proofs import ProofStep
from zpm_domain.ports.solutions import Solution, answered_variables
from zpm_domain.ports.store_checks import PredicateState
from zpm_domain.prolog.errors import PermissionDenied, PrologError
from zpm_domain.prolog.terms import (
    NIL,
    Atom,
    String,
    Struct,
    Term,
    Var,
    list_items,
    make_list,
    variables,
    variant,
)
from zpm_domain.stored.clauses import Clause, PredicateInfo

__all__ = [
    "NIL",
    "OPTIONAL_CAPABILITIES",
    "AnswersTooLarge",
    "Atom",
    "Availability",
    "BudgetExceeded",
    "Clause",
    "CyclicAnswer",
    "DepthLimitExceeded",
    "Engine",
    "EngineRegistrar",
    "EngineUnsupported",
    "InferenceLimitExceeded",
    "IntegerTooLarge",
    "Interrupted",
    "LimitExceeded",
    "Limits",
    "Lookup",
    "MemoryLimitExceeded",
    "MemoryNotMounted",
    "PermissionDenied",
    "PredicateInfo",
    "PredicateState",
    "PrologError",
    "ProofStep",
    "Refusals",
    "ResourceLimitExceeded",
    "Solution",
    "String",
    "Struct",
    "Term",
    "TimeLimitExceeded",
    "Var",
    "ZpmError",
    "answered_variables",
    "create_engine",
    "hookimpl",
    "list_items",
    "make_list",
    "variables",
    "variant",
]
