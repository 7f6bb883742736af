"""How the CLI prints tool results and failures.

* text (default): the result text and a newline on stdout; a tool error is
  printed as ``ERROR: <text>`` on stdout, and its hint (what was wrong and
  how to fix it), when it has one, as ``zpm: <hint>`` on stderr;
* json: a JSON array of the result texts on stdout (non-ASCII kept as is).

The exit code is 1 for a tool error, else 0.  Failures that are not tool
results (usage, project, start-up) go to stderr with exit code 1.
"""

from __future__ import annotations

import json
import sys

from zpm_app.catalogue import ToolOutcome


def print_outcome(outcome: ToolOutcome, output_format: str) -> int:
    """Print ``outcome`` in ``output_format`` (``text`` or ``json``); return the exit code."""
    if output_format == "json":
        print(json.dumps([outcome.text], ensure_ascii=False))
    elif outcome.is_error:
        print(f"ERROR: {outcome.text}")
        if outcome.hint is not None:
            sys.stdout.flush()
            print(f"zpm: {outcome.hint}", file=sys.stderr)
    else:
        print(outcome.text)
    return 1 if outcome.is_error else 0


def fail(message: str) -> int:
    """Print ``message`` on stderr; return exit code 1."""
    print(message, file=sys.stderr)
    return 1
