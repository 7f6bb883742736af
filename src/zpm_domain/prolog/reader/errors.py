"""Positioned syntax errors of the reader."""

from __future__ import annotations

from zpm_domain.errors import PrologSyntaxError


def syntax_error(text: str, offset: int, description: str) -> PrologSyntaxError:
    """A :class:`PrologSyntaxError` at ``offset`` (0-based) of ``text``.

    Line and column are 1-based and count characters; ``offset`` past the
    end points just after the last character.
    """
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return PrologSyntaxError(description, offset, line, column)
