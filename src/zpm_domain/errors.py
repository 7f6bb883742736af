"""The one error hierarchy of zpm.

Every error carries the exact user-facing text that a tool returns as its
error result (``str(error) == error.message``).  Adapters translate their
native failures into these classes; the app layer turns them into
``isError`` results (MCP) or ``ERROR: ...`` lines and exit code 1 (CLI).

The errors whose text shows Prolog terms (a thrown ball, a predicate
indicator) are in ``zpm_domain.prolog.errors``, which renders them; they are
``ZpmError``s like the rest.  This module imports nothing of zpm's but
``zpm_domain.limits``, so every layer may use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zpm_domain.limits import Limits


class ZpmError(Exception):
    """Base class.  ``message`` is the tool result text (the spec's, byte for
    byte); ``hint``, when not ``None``, says what was wrong and how to fix it
    (a second text item of the result)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @property
    def hint(self) -> str | None:
        return None

    def __str__(self) -> str:
        return self.message


class InvalidArguments(ZpmError):
    """Missing, null, empty or mistyped tool argument (the spec's ``InvalidArguments``)."""

    def __init__(self, detail: str | None = None) -> None:
        super().__init__("InvalidArguments")
        self.detail = detail

    @property
    def hint(self) -> str | None:
        return self.detail


class ExecutionFailed(ZpmError):
    """An internal, engine or persistence failure (the spec's ``ExecutionFailed``).

    ``detail`` says what failed, for the log; ``explanation``, when the
    failure is the caller's to fix (a snapshot that does not exist), says
    what was wrong and becomes the result's hint.
    """

    def __init__(self, detail: str | None = None, *, explanation: str | None = None) -> None:
        super().__init__("ExecutionFailed")
        self.detail = detail
        self.explanation = explanation

    @property
    def hint(self) -> str | None:
        return self.explanation


class PrologSyntaxError(ZpmError):
    """The reader rejected its input.

    ``description`` says what is wrong (``operator expected``,
    ``unbalanced parentheses``...); ``offset`` is the 0-based character
    position in the input, ``line``/``column`` are 1-based.  When
    ``positioned`` is false the message has no position (used for the spec's
    exact ``unbalanced parentheses`` text).
    """

    def __init__(
        self, description: str, offset: int, line: int, column: int, *, positioned: bool = True
    ) -> None:
        self.description = description
        self.offset = offset
        self.line = line
        self.column = column
        self.positioned = positioned
        where = f" (line {line}, column {column})" if positioned else ""
        super().__init__(f"{description}{where}")


class InputSyntaxError(ZpmError):
    """A tool argument is not valid Prolog: ``Invalid Prolog syntax in <what>: <why>``."""

    def __init__(self, what: str, cause: PrologSyntaxError) -> None:
        super().__init__(f"Invalid Prolog syntax in {what}: {cause.message}")
        self.cause = cause


class InvalidClause(ZpmError):
    """Syntactically valid, but not acceptable here (e.g. a rule given as a fact)."""


class NoMatchingClause(ZpmError):
    """A retract found nothing (texts differ per tool, as the spec shows)."""


class UnknownAssumption(ZpmError):
    """retract_assumption of a name that supports no fact."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Unknown assumption '{name}'")


class MonotonicKnowledge(ZpmError):
    """A withdrawal that would take a knowledge-file clause."""

    def __init__(self, clause: str, where: str) -> None:
        super().__init__(f"Cannot withdraw monotonic knowledge: {clause} (from {where})")


class StrengthCapped(ZpmError):
    """``assert`` with a strength other than ``default``."""

    def __init__(self) -> None:
        super().__init__("strength is capped at default: knowledge from clients is defeasible")


class RenameRefused(ZpmError):
    """rename_predicate cannot rename (collision, ambiguous arity, ISO
    operator, self-rename, read-only memory); the message says which."""


class MemoryNotMounted(ZpmError):
    def __init__(self, name: str) -> None:
        super().__init__(f"Memory not mounted: {name}")
        self.name = name


class UnknownResource(ZpmError):
    """A resource URI that names no resource zpm offers now."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"Unknown resource: {uri}")
        self.uri = uri


class MemoryReadOnly(ZpmError):
    def __init__(self, name: str) -> None:
        super().__init__(f"Memory is read-only: {name}")
        self.name = name


class PersistenceUnavailable(ZpmError):
    """A change to a memory whose storage cannot be written (degraded mode).
    ``location`` is ``None`` for a caller not shown where the server keeps
    its data (``Access.sees_locations``)."""

    def __init__(self, name: str, location: str | None) -> None:
        where = "its storage" if location is None else location
        super().__init__(
            f"Cannot change memory {name}: persistence is degraded ({where} is not "
            "writable), so the change could not be made durable"
        )
        self.name = name
        self.location = location


class StorageUnavailable(ZpmError):
    """The storage server cannot be reached (or failed) during a call: nothing
    of the call was applied; the server reconnects by itself on a later call.

    ``where`` names the storage without secrets (no password); ``detail`` is
    the driver's reason.  The hint says what to check.
    """

    def __init__(self, where: str, detail: str) -> None:
        super().__init__(f"Storage unavailable: {where}: {detail}")
        self.where = where
        self.detail = detail

    @property
    def hint(self) -> str | None:
        return (
            "The database did not answer; nothing of this call was applied. Check that "
            "the PostgreSQL server is running and reachable, then call again: zpm "
            "reconnects by itself."
        )


class StorageOutcomeUnknown(StorageUnavailable):
    """The connection to the storage was lost while a call's change was
    being committed, and the storage could not tell afterwards whether the
    commit was made: the change may be stored.  The call must not be made
    again blindly (a fact remembered twice is two clauses); the memory
    reads its journal again at its next call, whatever the outcome."""

    def __init__(self, where: str, detail: str) -> None:
        super().__init__(where, f"{detail}; whether this call was stored is not known")

    @property
    def hint(self) -> str | None:
        return (
            "The connection to the database was lost while this call was being committed. "
            "Read the memory (query_logic or matching) before making the call again: it may "
            "have been stored. zpm reconnects by itself."
        )


class StorageBusy(ZpmError):
    """A change lost the race to another writer of the same memory too many
    times in a row (each time it caught up and checked again): nothing of it
    was applied.  ``where`` names the memory's journal."""

    def __init__(self, where: str, attempts: int) -> None:
        super().__init__(
            f"Cannot change {where}: other writers changed it {attempts} times while "
            "this change was being made; nothing was applied"
        )
        self.where = where

    @property
    def hint(self) -> str | None:
        return "Call again: the change is checked against what the others wrote."


class RecoveryFailed(ZpmError):
    """A memory's recorded state cannot be brought back; the text says where and why."""


class EngineUnsupported(ZpmError):
    """The engine does not offer an optional part of the engine port."""

    def __init__(self, tool: str, engine: str, method: str) -> None:
        super().__init__(
            f"{tool} is not available: the {engine or 'selected'} engine does not "
            f"implement Engine.{method}"
        )
        self.tool = tool
        self.engine = engine
        self.method = method


class Interrupted(ZpmError):
    """The client cancelled the call while the engine was solving; the
    knowledge base is unchanged (nobody sees this text: a cancelled request
    gets no answer)."""

    def __init__(self) -> None:
        super().__init__("Cancelled")


class LimitExceeded(ZpmError):
    """A per-call resource limit was hit; the knowledge base is unchanged."""


class BudgetExceeded(LimitExceeded):
    """The goal did not finish within the call's budget: its time, its
    inferences, its memory or (python engine) its stack depth ran out.

    Which of these runs out first depends on the engine's speed and on how
    it counts (see ``zpm_domain.limits``), so the text is the same whichever
    it was and names the whole budget; the subclass says which one it was
    (for logs and tests, never in the text).
    """

    def __init__(self, limits: Limits) -> None:
        super().__init__(
            f"Limit exceeded: the goal did not finish within {limits.time_s:g} s, "
            f"{limits.max_inferences} inferences and {limits.max_memory_mb} MB of memory"
        )
        self.limits = limits

    @property
    def hint(self) -> str | None:
        return (
            "Which part of the budget runs out first depends on the engine, so all of it "
            "is named. A goal that loops never finishes; otherwise narrow the goal, or "
            "raise time_s, max_inferences or max_memory_mb under [limits] in "
            ".zpm/config.toml (ZPM_TIME_LIMIT sets the time)."
        )


class TimeLimitExceeded(BudgetExceeded):
    """The budget ran out on the clock (``limits.time_s``)."""


class InferenceLimitExceeded(BudgetExceeded):
    """The budget ran out on inferences (``limits.max_inferences``)."""


class MemoryLimitExceeded(BudgetExceeded):
    """The budget ran out on memory (``limits.max_memory_mb``)."""


class DepthLimitExceeded(BudgetExceeded):
    """The python engine's stacks grew past ``limits.max_depth`` frames."""


class ResourceLimitExceeded(LimitExceeded):
    """A size limit that depends on the goal's results only, the same on
    every engine: an integer too large to compute, answers too large to
    return, an answer that cannot be written (``what`` says which)."""

    def __init__(self, what: str) -> None:
        super().__init__(f"Resource limit exceeded: {what}")
        self.what = what


class IntegerTooLarge(ResourceLimitExceeded):
    """A computation whose integer result would exceed ``MAX_INTEGER_BITS``."""

    def __init__(self) -> None:
        from zpm_domain.limits import MAX_INTEGER_BITS

        super().__init__(f"an integer of more than {MAX_INTEGER_BITS} bits")


class AnswersTooLarge(ResourceLimitExceeded):
    """The answers of one solve exceed ``limits.max_answer_cells``."""

    def __init__(self) -> None:
        super().__init__("the answers are too large to return; narrow the query")


class CyclicAnswer(ResourceLimitExceeded):
    """An answer binds ``variable`` (its name; ``None`` for a variable of
    zpm's own, or for a thrown ball) to a cyclic term (``X = f(X)``), which
    has no finite text to return."""

    def __init__(self, variable: str | None) -> None:
        if variable is None:
            what = "the answer holds a cyclic term, which cannot be returned as text"
        else:
            what = f"the answer binds {variable} to a cyclic term, which cannot be returned as text"
        super().__init__(what)
        self.variable = variable

    @property
    def hint(self) -> str | None:
        return (
            "A cyclic term (such as X = f(X)) is fine inside a goal; keep it out of the "
            "answer: test it (cyclic_term/1), take what you need of it with findall/3, or "
            "name the variable with a leading underscore (_X) so that it is not returned."
        )


class ThrownTooLarge(ResourceLimitExceeded):
    """The goal threw a ball, and did not catch it, larger than the answer
    limits (``max_answer_cells``, ``max_answer_chars``).  Only ``functor``
    is told (``name/arity`` as ``writeq/1`` writes it: the ball's, or for an
    ISO error ``error(Formal, _)`` the formal's; ``None`` when the ball is
    atomic or its name too long to tell)."""

    def __init__(self, functor: str | None) -> None:
        told = "" if functor is None else f" ({functor})"
        super().__init__(f"the goal threw a term too large to return{told}")
        self.functor = functor

    @property
    def hint(self) -> str | None:
        return (
            "Catch it inside the goal (catch/3) and keep what you need of it, or throw a "
            "smaller term."
        )


class CyclicBall(ResourceLimitExceeded):
    """The goal threw a cyclic term, which has no finite text to return."""

    def __init__(self) -> None:
        super().__init__("the goal threw a cyclic term, which cannot be returned as text")


class TooManyViolations(ZpmError):
    """An integrity rule finds so many violations that a write's check
    cannot compare what it finds before and after the write."""

    def __init__(self, most: int) -> None:
        super().__init__(f"it finds {most:,} violations or more")


class ConstraintViolated(ZpmError):
    """A write that a constraint whose policy is ``refuse`` forbids: nothing
    was stored.  ``message`` names the clause it conflicts with, its handle,
    who stored it and when; the hint says how to replace it."""

    def __init__(self, message: str, replace: str) -> None:
        super().__init__(message)
        self._replace = replace

    @property
    def hint(self) -> str | None:
        return self._replace
