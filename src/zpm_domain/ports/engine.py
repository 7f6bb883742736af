"""The Engine port: a clause store and solver with one namespace per memory.

Engines exchange *domain* terms only (``zpm_domain.prolog.terms``).  They never parse
or print Prolog text: the domain's reader and writer do that, so every engine
gives byte-identical tool results.

Contract for every implementation (checked by the contract suite):

* Namespaces are independent databases.  ``ensure_namespace`` is idempotent;
  using a namespace that does not exist raises ``KeyError``.
* Clause order is insertion order (``front=True`` inserts first).  Listing and
  solving follow it; a running solve sees the database as it was when each
  predicate was called (logical update view).
* Calling a predicate that has no clauses and is not a built-in *fails*.
* A goal ``M:G`` runs ``G`` in namespace ``M``; an unknown ``M`` raises
  ``MemoryNotMounted``.  Within :meth:`Engine.reaching`, so does an ``M``
  outside the reach.
* Stored clauses keep their variable names: ``clauses()`` returns terms whose
  ``Var.name`` are those of the clause that was added.
* Errors: an uncaught Prolog exception → ``PrologError(ball)`` with an ISO
  ball shaped as SWI-Prolog 9 shapes it; a limit → a ``LimitExceeded``
  subclass; changing a built-in → ``PermissionDenied.builtin``; changing a
  static predicate → ``PermissionDenied.static``.  After any error the
  database is exactly as before the failed operation.
* The changing methods are templates: ``add_clause``, ``add_clauses``,
  ``copy_clauses``, ``declare_dynamic``, ``retract``, ``retract_variants``,
  ``retract_stored`` and ``retract_all`` apply the checks of
  ``zpm_domain.ports.store_checks`` (through the engine's ``_lookup``) and
  then call the engine's part, a protected method of the same name
  (``_add_clause``...), which is only reached with a change the checks
  allow.  Engines override the protected methods; the public ones are
  ``@final``.
* ``close()`` releases what the engine holds; the app calls it at shutdown.

The required core (``engine_core.EngineCore``: namespaces, ``_lookup``,
``_add_clause``, ``_declare_dynamic``, ``_retract``, ``_retract_stored``,
``_retract_all``, ``clauses``, ``predicates``, ``solve``) is all an engine
must implement.
The rest are optional capabilities, each a class of its own module with a
default, named as the contract suite and ``register(..., lacks=...)`` name
them (:data:`CAPABILITIES`):

* ``bulk_load`` (``engine_bulk.BulkLoad``): adding, copying and removing many
  clauses at once; the defaults go one clause at a time;
* ``hypotheses`` (``engine_hypotheses.Hypotheses``): ``solve_as_if``; the
  default changes the namespace and puts it back;
* ``reach`` (``engine_reach.Reach``): ``reaching`` and ``aliasing``; the
  defaults refuse a limited reach and any alias (``EngineUnsupported``);
* ``interrupt`` (``engine_interrupt.Interrupt``): ``interrupt`` and
  ``resume``; by default a cancelled solve runs until its limits end it;
* ``reasoning`` (``engine_reasoning.Reasoning``): ``explain`` and
  ``tabled_answers`` (explain_why, trace_dependency); the defaults raise
  ``EngineUnsupported``.

:func:`implemented` says which of them an engine class implements, and
:func:`lacking` which it lacks: those whose defaults do not do the work
(``reach``, ``interrupt``, ``reasoning``) and that it does not implement.
"""

from __future__ import annotations

from zpm_domain.ports.engine_bulk import BulkLoad
from zpm_domain.ports.engine_core import EngineCore, Lookup, Refusals
from zpm_domain.ports.engine_hypotheses import Hypotheses
from zpm_domain.ports.engine_interrupt import Interrupt
from zpm_domain.ports.engine_reach import Reach
from zpm_domain.ports.engine_reasoning import Reasoning

__all__ = [
    "CAPABILITIES",
    "BulkLoad",
    "Engine",
    "EngineCore",
    "Hypotheses",
    "Interrupt",
    "Lookup",
    "Reach",
    "Reasoning",
    "Refusals",
    "implemented",
    "lacking",
]


class Engine(Reasoning, Interrupt, Reach, Hypotheses, BulkLoad, EngineCore):
    """A Prolog clause store plus solver: the required core and every
    optional capability, each with its default.  Engines subclass this."""


CAPABILITIES: dict[str, type[EngineCore]] = {
    capability.capability: capability
    for capability in (BulkLoad, Hypotheses, Reach, Interrupt, Reasoning)
}
"""The optional capabilities by name, in the order an engine is built up."""


def implemented(engine: type[Engine]) -> frozenset[str]:
    """The capabilities ``engine`` implements: those of which it overrides
    at least one method (the rest it takes from the defaults)."""
    found = set()
    for name, capability in CAPABILITIES.items():
        own = [attr for attr, value in vars(capability).items() if callable(value)]
        if any(getattr(engine, attr) is not getattr(capability, attr) for attr in own):
            found.add(name)
    return frozenset(found)


WITHOUT_DEFAULT_WORK = frozenset({"reach", "interrupt", "reasoning"})
"""The capabilities whose defaults refuse or do nothing: an engine that does
not implement one lacks it (the others' defaults do the work, slower)."""


def lacking(engine: type[Engine]) -> frozenset[str]:
    """The capabilities ``engine`` lacks: of :data:`WITHOUT_DEFAULT_WORK`,
    those it does not implement."""
    return WITHOUT_DEFAULT_WORK - implemented(engine)
