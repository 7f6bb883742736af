"""How the CLI prints tool results and failures.

* text (default): the result text and a newline on stdout; a tool error is
  printed as ``ERROR: <text>`` on stdout;
* json: the tool's JSON value itself on stdout: its text when the tool
  answers JSON, else the text as a JSON string; a tool error prints
  ``{"error": <text>}`` (with ``"hint"`` when it has one).

The notes of an outcome (an error's hint: what was wrong and how to fix
it; a success's notes: a stored fact that is defeated, a capitalised name
that became a variable) go to stderr, one ``zpm: <note>`` line each, after
stdout is flushed, so stdout holds only the tool's text or value; the
json format's error value carries its hint itself.

The exit code is 1 for a tool error, else 0.  Failures that are not tool
results (project, start-up) go to stderr with exit code 1; usage errors
exit with ``USAGE_ERROR``.
"""

from __future__ import annotations

import json
import sys

from zpm_app.catalogue.tool_catalogue import ToolOutcome

USAGE_ERROR = 2


def print_outcome(outcome: ToolOutcome, output_format: str, *, json_text: bool) -> int:
    """Print ``outcome`` in ``output_format`` (``text`` or ``json``); ``json_text``:
    the tool's text is JSON.  Returns the exit code."""
    notes = outcome.notes
    if output_format == "json":
        if outcome.is_error:
            value = {"error": outcome.text}
            if notes:
                value["hint"] = notes[0]
            print(json.dumps(value, ensure_ascii=False))
            notes = notes[1:]
        elif json_text:
            print(outcome.text)
        else:
            print(json.dumps(outcome.text, ensure_ascii=False))
    elif outcome.is_error:
        print(f"ERROR: {outcome.text}")
    else:
        print(outcome.text)
    if notes:
        sys.stdout.flush()
        for note in notes:
            print(f"zpm: {note}", file=sys.stderr)
    return 1 if outcome.is_error else 0


def fail(message: str) -> int:
    """Print ``message`` on stderr; return exit code 1."""
    print(message, file=sys.stderr)
    return 1
