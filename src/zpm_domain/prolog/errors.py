"""The errors whose text shows Prolog terms: an exception a goal threw, a
predicate tools may not change, a call outside the sandbox.

Part of zpm's one error hierarchy (``zpm_domain.errors``): each is a
``ZpmError`` whose ``message`` is the tool result text.
"""

from __future__ import annotations

from zpm_domain.errors import ThrownTooLarge, ZpmError
from zpm_domain.prolog.terms import Struct, Term
from zpm_domain.prolog.writer import indicator_text, render


class PermissionDenied(ZpmError):
    """A change to a predicate that tools may not change.

    ``indicator`` names the predicate (``name/arity`` text) and ``reason``
    says why in a few words (``a built-in predicate``, ``defined by a
    knowledge file``); both are empty for refusals built from a bare text.
    """

    def __init__(self, message: str, *, indicator: str = "", reason: str = "") -> None:
        super().__init__(message)
        self.indicator = indicator
        self.reason = reason

    @classmethod
    def builtin(cls, name: str, arity: int) -> PermissionDenied:
        pi = indicator_text(name, arity)
        return cls(
            f"Cannot modify built-in predicate: {pi}", indicator=pi, reason="a built-in predicate"
        )

    @classmethod
    def static(cls, name: str, arity: int) -> PermissionDenied:
        pi = indicator_text(name, arity)
        return cls(
            f"Cannot modify static predicate {pi}: it is defined in a knowledge file",
            indicator=pi,
            reason="defined by a knowledge file",
        )


class SandboxViolation(ZpmError):
    """A query or rule body calls something outside the allow-list."""

    def __init__(self, name: str, arity: int) -> None:
        super().__init__(
            f"Not allowed in a query or rule body: {indicator_text(name, arity)} "
            "(only pure built-ins and knowledge-base predicates may be called)"
        )
        self.name = name
        self.arity = arity


class PrologError(ZpmError):
    """An exception thrown by a goal and not caught inside it.

    ``ball`` is the thrown domain term.  ISO errors ``error(Formal, Context)``
    are reported as ``Prolog error: <Formal>`` (the context differs between
    engines and is left out); any other ball as ``Unhandled exception: <Ball>``.
    """

    def __init__(self, ball: Term) -> None:
        self.ball = ball
        formal = iso_formal(ball)
        if formal is not None:
            message = f"Prolog error: {render(formal)}"
        else:
            message = f"Unhandled exception: {render(ball)}"
        super().__init__(message)


def iso_formal(ball: Term) -> Term | None:
    """The formal term of ``error(Formal, _)``, else ``None``."""
    if isinstance(ball, Struct) and ball.name == "error" and len(ball.args) == 2:
        return ball.args[0]
    return None


TOLD_NAME_CHARS = 100
"""The longest functor name ``ThrownTooLarge`` tells."""


def thrown_too_large(name: str | None, arity: int, formal: bool) -> ThrownTooLarge:
    """The error of an uncaught ball over the answer limits, from the
    principal functor the engine found: the formal's of an ISO error
    (``formal``), else the ball's; ``name`` is ``None`` for an atomic term."""
    if name is None or len(name) > TOLD_NAME_CHARS:
        return ThrownTooLarge(None)
    told = indicator_text(name, arity)
    return ThrownTooLarge(f"error({told}, _)" if formal else told)
