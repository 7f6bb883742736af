"""How well ``search_facts`` finds what people mean: recall@5, recall@20 and MRR.

The retrieval set (``benchmarks/recall_set.py``: a project's memory of more
than 5,000 facts with its predicates described, and the questions people ask
of it) is imported into a fresh project on the python engine; each question
is asked of ``search_facts`` (the first 20 results), and the answers are
scored against the facts that answer it:

* recall@k: of a question's answers, the share found in the first k results
  (out of k when it has more than k answers), averaged over the questions;
* MRR: the mean of 1 / the rank of the first answer found (0 when none is in
  the first 20).

It prints one line per kind of question (in other words; exact-word
lookups) and the whole set.

    python benchmarks/recall.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from recall_set import Query, RecallSet, build  # noqa: E402 (the benchmarks folder)

from zpm_app.bootstrap.config import init_project, resolve_settings  # noqa: E402
from zpm_app.bootstrap.startup import open_import, open_toolbox  # noqa: E402
from zpm_app.worker.toolbox import Toolbox  # noqa: E402

SHOWN = 20


@dataclass(frozen=True)
class Scores:
    """recall@5, recall@20 and MRR over some questions."""

    questions: int
    recall_5: float
    recall_20: float
    mrr: float


def scores(found: list[tuple[Query, list[str]]]) -> Scores:
    """The scores of each question's results (the texts of the facts found, best first)."""
    r5 = r20 = rr = 0.0
    for query, results in found:
        wanted = query.answers
        r5 += len(wanted & set(results[:5])) / min(len(wanted), 5)
        r20 += len(wanted & set(results[:20])) / min(len(wanted), 20)
        rank = next((i for i, text in enumerate(results, 1) if text in wanted), None)
        rr += 0.0 if rank is None else 1 / rank
    n = len(found) or 1
    return Scores(len(found), r5 / n, r20 / n, rr / n)


def prepared(project: Path, recall: RecallSet) -> Toolbox:
    """A project whose default memory holds the set's facts and descriptions."""
    project.mkdir(parents=True, exist_ok=True)
    init_project(project)
    settings = resolve_settings(project=str(project), env={"ZPM_ENGINE": "python"})
    facts = project / "facts.pl"
    facts.write_text("".join(f"{fact}.\n" for fact in recall.facts), encoding="utf-8")
    importer = open_import(settings)
    try:
        importer.import_file(facts, None, None, None)
    finally:
        importer.close()
    box = open_toolbox(settings)
    for predicate, description, arguments in recall.descriptions:
        answer = box.call(
            "describe_predicate",
            {"predicate": predicate, "description": description, "arguments": arguments},
        )
        assert not answer.is_error, answer.text
    return box


def search(box: Toolbox, query: Query, arguments: dict[str, object]) -> list[str]:
    """The texts of the facts ``search_facts`` finds for ``query``, best first."""
    answer = box.call("search_facts", {"query": query.text, "limit": SHOWN, **arguments})
    assert not answer.is_error, answer.text
    return [row["clause"] for row in json.loads(answer.text)["results"]]


def main() -> None:
    recall = build()
    print(
        f"{len(recall.facts):,} facts, {len(recall.queries)} questions "
        f"({sum(q.exact for q in recall.queries)} exact-word lookups)"
    )
    print(f"{'mode':<8} {'questions':<16} {'n':>4} {'recall@5':>9} {'recall@20':>10} {'MRR':>6}")
    with tempfile.TemporaryDirectory(prefix="zpm-recall-") as tmp:
        box = prepared(Path(tmp) / "project", recall)
        try:
            found = [(query, search(box, query, {})) for query in recall.queries]
        finally:
            box.close()
    kinds = {
        "in other words": [pair for pair in found if not pair[0].exact],
        "exact words": [pair for pair in found if pair[0].exact],
        "all": found,
    }
    for kind, pairs in kinds.items():
        s = scores(pairs)
        print(
            f"{'words':<8} {kind:<16} {s.questions:>4} {s.recall_5:>9.3f} {s.recall_20:>10.3f} "
            f"{s.mrr:>6.3f}"
        )


if __name__ == "__main__":
    main()
