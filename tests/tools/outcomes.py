"""Calls through the toolbox that must succeed, or must fail, with their text."""

from __future__ import annotations

from typing import Any

from zpm_app.worker.toolbox import Toolbox


def ok(box: Toolbox, tool: str, **arguments: Any) -> str:
    """The text of a successful call (the test fails on an error result)."""
    result = box.call(tool, arguments)
    assert not result.is_error, (tool, arguments, result.text)
    return result.text


def error(box: Toolbox, tool: str, **arguments: Any) -> str:
    """The text of an error result (the test fails on a success)."""
    result = box.call(tool, arguments)
    assert result.is_error, (tool, arguments, result.text)
    return result.text
