"""The guide a client gets at ``initialize`` (the MCP ``instructions``).

One short text: what zpm is for, how to write terms (the mistake that costs
most is a capitalised name, which Prolog reads as a variable), which tool
does what, memories and forks.  It follows the tools a server offers: a
line names only offered tools, and a line whose tools are all absent is
left out; a session that works on its own fork (``zpm serve --fork``) is
told so.  It stays a few hundred tokens: clients put it in the model's
context on every turn.
"""

from __future__ import annotations

from collections.abc import Set

INTRODUCTION = (
    "zpm is your durable memory: a Prolog knowledge base of facts and rules that "
    "outlives the session. Store what you learn, then ask with Prolog queries; a change "
    "is on disk before its call returns."
)

TERMS = """Writing terms:
- Constants are lowercase atoms (alice, payments_api) or quoted atoms ('Alice', 'New York'); \
strings are in double quotes ("v2.1"); numbers as usual.
- A name that starts with a capital letter is a variable: owner(payments, Alice) holds for \
anyone, so write 'Alice' or alice. Use _ for "any value" on purpose.
- A rule is a head and a body: head can_deploy(S), body owner(S, _), \\+ frozen(S)."""

Tool = tuple[str, str]
"""A tool's name and what to say of it in the guide (``""``: nothing)."""

TOOL_LINES: tuple[tuple[str, tuple[Tool, ...]], ...] = (
    (
        "Look first",
        (
            ("get_kb_overview", "predicates with samples"),
            ("search_facts", "keyword search over stored clauses"),
            ("get_knowledge_schema", ""),
        ),
    ),
    (
        "Store",
        (
            ("remember_fact", ""),
            ("upsert_fact", "replaces facts with the same name and first argument"),
            ("update_fact", ""),
            ("define_rule", ""),
        ),
    ),
    ("Remove", (("forget_fact", ""), ("clear_context", "every fact matching a pattern"))),
    (
        "Say what a predicate means",
        (("describe_predicate", "a description and argument names for name/arity"),),
    ),
    (
        "Ask",
        (
            ("query_logic", "all answers as JSON"),
            ("explain_why", "a proof"),
            ("verify_consistency", "runs your integrity_violation rules"),
            ("trace_dependency", "what path/2 reaches"),
        ),
    ),
    (
        "Hypotheses",
        (
            ("assume_fact", "a fact under a named assumption"),
            ("retract_assumption", "drops what only it holds"),
            ("get_belief_status", ""),
        ),
    ),
    (
        "Safety points",
        (
            ("save_snapshot", "before a risky change"),
            ("restore_snapshot", "to go back"),
            ("list_snapshots", ""),
        ),
    ),
    (
        "Catch up",
        (
            (
                "history",
                "who changed what and when; since your last cursor, what changed; as_of on "
                "the reads answers as of a past moment",
            ),
        ),
    ),
    (
        "Clauses by handle, with provenance",
        (
            ("assert", ""),
            ("unassert", ""),
            ("query", ""),
            ("matching", ""),
            ("argue", "true, false, both or unknown, with the case for and against"),
        ),
    ),
)
"""What each group of tools is for, and its tools in the order a line names them."""

MEMORY = (
    "Memories: knowledge tools take an optional memory argument (the verb tools call it "
    "context); without it they use default."
)
MORE_MEMORIES = " create_memory and mount_memory add others."
FORKS = (
    "To try changes apart, fork_memory copies a memory; merge_memory (with dry_run "
    "first) brings the fork's changes back."
)


def session_note(fork: str) -> str:
    return (
        f"This session works on its own fork '{fork}' of default: what you store goes "
        "there, every other memory is read-only, and a person reviews and merges the fork."
    )


def guide(offered: Set[str], fork: str | None = None) -> str:
    """The guide for a server that offers the tools named in ``offered``;
    ``fork``: the fork this session works on (``None``: none)."""
    lines = []
    for purpose, tools in TOOL_LINES:
        named = [f"{name} ({gloss})" if gloss else name for name, gloss in tools if name in offered]
        if named:
            lines.append(f"- {purpose}: {', '.join(named)}.")
    parts = [INTRODUCTION, TERMS]
    if lines:
        parts.append("Tools:\n" + "\n".join(lines))
    more = {"create_memory", "mount_memory"} <= offered
    parts.append(MEMORY + (MORE_MEMORIES if more else ""))
    if fork is not None:
        parts.append(session_note(fork))
    elif {"fork_memory", "merge_memory"} <= offered:
        parts.append(FORKS)
    return "\n\n".join(parts)
