"""Goals the sandbox refuses, and the text of a refusal."""

from __future__ import annotations

SANDBOX_REFUSALS: list[tuple[str, str]] = [
    ("halt", "halt/0"),
    ("shell('rm -rf /')", "shell/1"),
    ("open('/etc/passwd', read, S)", "open/3"),
    ("X = 1, (true ; shell(ls))", "shell/1"),
    ("findall(X, (member(X, [a]), halt), L)", "halt/0"),
    ("call(shell, ls)", "shell/1"),
    ("maplist(assertz, [p(1)])", "assertz/1"),
    ("G = halt, call(G)", "halt/0"),
]


def refusal_text(indicator: str) -> str:
    """The error of a goal or rule body that calls ``indicator``."""
    return (
        f"Not allowed in a query or rule body: {indicator} "
        "(only pure built-ins and knowledge-base predicates may be called)"
    )
