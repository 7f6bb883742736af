"""A memory of 30,000 facts through the tools on one SWI engine, after a
query ran on the same thread under a small memory limit (1 MB): loading,
listing, snapshots, forks, renames and a restart are the engine's own work
and must not be bounded by a query's memory limit.  Prints ``OK``.

``python memory_limit_script.py ENGINE`` (``janus`` or ``pyswip``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox
from zpm_domain.changes.mutations import AddClause
from zpm_domain.prolog.terms import Atom, Struct
from zpm_domain.stored.clauses import Clause

FACTS = 30_000


def main(engine: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        init_project(project)
        (project / ".zpm" / "config.toml").write_text("[limits]\nmax_memory_mb = 1\ntime_s = 60\n")
        settings = resolve_settings(project=str(project), env={"ZPM_ENGINE": engine})
        box = open_toolbox(settings)
        try:
            # the query's memory limit is in force on this thread first
            expect(box, "query_logic", {"goal": "numlist(1, 1000000, _L)"}, "Limit exceeded")
            memory = box.memories.default
            with memory.writing():
                memory.commit([AddClause(Clause(fact(i))) for i in range(FACTS)])
            check_all(box, "default")
            expect(box, "save_snapshot", {"name": "big"}, "Snapshot 'big' saved")
            expect(box, "restore_snapshot", {"name": "big"}, "Snapshot 'big' restored")
            check_all(box, "default")
            expect(
                box,
                "fork_memory",
                {"name": "copy"},
                f"Forked memory 'copy' from 'default' ({FACTS} clauses)",
            )
            check_all(box, "copy")
            expect(
                box, "rename_predicate", {"old_functor": "f", "new_functor": "g", "arity": 2}, ""
            )
            expect(
                box,
                "query_logic",
                {"goal": "aggregate_all(count, g(_, _), N)"},
                f'[{{"N":{FACTS}}}]',
            )
        finally:
            box.close()
        box = open_toolbox(settings)  # a restart: the memory is loaded again
        try:
            expect(
                box,
                "query_logic",
                {"goal": "aggregate_all(count, g(_, _), N)"},
                f'[{{"N":{FACTS}}}]',
            )
            expect(box, "get_knowledge_schema", {}, '"g"')
        finally:
            box.close()
    print("OK")


def fact(i: int) -> Struct:
    return Struct("f", (i, Atom(f"value_{i % 97}")))


def check_all(box: Toolbox, memory: str) -> None:
    expect(
        box,
        "query_logic",
        {"goal": f"{memory}:aggregate_all(count, f(_, _), N)"},
        f'[{{"N":{FACTS}}}]',
    )
    expect(box, "get_knowledge_schema", {"memory": memory}, f'"count":{FACTS}')


def expect(box: Toolbox, tool: str, arguments: dict[str, object], part: str) -> None:
    result = box.call(tool, arguments)
    if part not in result.text or (result.is_error and not part.startswith("Limit")):
        raise SystemExit(f"{tool} {arguments}: {result.text[:500]}")


if __name__ == "__main__":
    main(sys.argv[1])
