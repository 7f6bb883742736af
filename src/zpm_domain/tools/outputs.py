"""The JSON Schemas of the tools' structured results (MCP ``outputSchema``).

Each tool whose text is JSON declares one of these with ``@tool(...,
output=...)`` and returns its data as ``structuredContent`` beside the text.
The structured form is the text's data, except where clients need another
shape: ``query_logic`` wraps its answers in an object that also says
whether the answer limit cut them, ``trace_dependency`` wraps its nodes, and
``explain_why`` sends its proof tree flat (``nodes`` in pre-order, each with
its ``id`` and its ``parent``'s), since deeply nested JSON breaks clients'
models.  Schemas use JSON Schema 2020-12 (MCP's default dialect) and stay a
few levels deep.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

TERM_VALUE: Schema = {
    "description": "A Prolog term as JSON: an atom or a string as a string, a number as "
    "a number, a proper list as an array, an unbound variable as _G<n>, any other term "
    "as its Prolog text.",
    "type": ["string", "number", "array"],
}
NAMES: Schema = {"type": "array", "items": {"type": "string"}}
COUNT: Schema = {"type": "integer", "minimum": 0}
KIND: Schema = {"enum": ["fact", "rule", "both"]}


def _object(properties: dict[str, Schema], description: str | None = None) -> Schema:
    """A closed object whose properties are all required."""
    schema: Schema = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    if description:
        schema["description"] = description
    return schema


def _array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def _nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


QUERY_ANSWERS = _object(
    {
        "answers": _array(
            {
                "type": "object",
                "description": "One answer: each named variable of the goal and its value.",
                "additionalProperties": TERM_VALUE,
            }
        ),
        "truncated": {
            "type": "boolean",
            "description": "The answers reached the answer limit: more may exist.",
        },
    }
)

DESCRIBED: dict[str, Schema] = {
    "description": {
        "type": "string",
        "description": "The predicate's one-line description (only when it has one).",
    },
    "arguments": {
        **NAMES,
        "description": "The names of the predicate's arguments (only when they are named).",
    },
}
"""The fields a described predicate adds (``describe_predicate``)."""


def _described(properties: dict[str, Schema]) -> Schema:
    """A closed object of ``properties`` (all required), plus the optional
    fields of a described predicate."""
    schema = _object({**properties, **DESCRIBED})
    schema["required"] = list(properties)
    return schema


KNOWLEDGE_SCHEMA = _object(
    {
        "predicates": _array(
            _described(
                {
                    "name": {"type": "string"},
                    "arity": COUNT,
                    "type": KIND,
                    "count": COUNT,
                }
            )
        ),
        "total": COUNT,
    }
)

MEMORY_SCOPE: Schema = {"enum": ["project", "global"]}
MEMORY_MODE: Schema = {"enum": ["rw", "ro"]}

OVERVIEW = _object(
    {
        "predicates": _array(
            _described(
                {
                    "functor": {"type": "string"},
                    "arity": COUNT,
                    "kind": KIND,
                    "count": COUNT,
                    "samples": NAMES,
                }
            )
        ),
        "assumptions": _object({"count": COUNT, "names": NAMES}),
        "snapshots": _object(
            {
                "count": COUNT,
                "latest": _nullable({"type": "string"}),
                "latest_at": _nullable({"type": "string"}),
            }
        ),
        "persistence": _object({"wal_pending": COUNT, "healthy": {"type": "boolean"}}),
        "mounts": _object(
            {
                "available": {"type": "boolean"},
                "count": COUNT,
                "items": _array(
                    _object(
                        {"name": {"type": "string"}, "scope": MEMORY_SCOPE, "mode": MEMORY_MODE}
                    )
                ),
            }
        ),
        "truncated": {"type": "boolean"},
    }
)

_MEMORY_ENTRY = _object(
    {
        "name": {"type": "string"},
        "scope": MEMORY_SCOPE,
        "mounted": {"type": "boolean"},
        "mode": _nullable(MEMORY_MODE),
        "fork_of": {"type": "string", "description": "A fork's base (forks only)."},
        "session": {
            "const": True,
            "description": "This session's own fork (zpm serve --fork; that entry only).",
        },
    }
)
_MEMORY_ENTRY["required"] = ["name", "scope", "mounted", "mode"]
MEMORIES = _object({"memories": _array(_MEMORY_ENTRY)})

ASSUMPTIONS = _object({"assumptions": NAMES})

BELIEF_STATUS = _object(
    {
        "status": {"enum": ["in", "out"]},
        "justifications": NAMES,
        "source": {"enum": ["interactive", "journal", "snapshot", "file", "unknown"]},
    }
)

JUSTIFICATION = _object({"facts": NAMES})

_RULE = {"head": {"type": "string"}, "body": {"type": "string"}, "memory": {"type": "string"}}

REFERENCES = _object(
    {
        "target": {"type": "string"},
        "memory": {"type": "string"},
        "rules": _array(_object(_RULE)),
        "direct_facts_count": COUNT,
        "facts_referenced_in_assumptions": _array(
            _object(
                {
                    "assumption": {"type": "string"},
                    "fact": {"type": "string"},
                    "memory": {"type": "string"},
                }
            )
        ),
        "cross_memory_refs": _array(_object({**_RULE, "qualifier": {"type": "string"}})),
    }
)

RENAME = _object(
    {
        "renamed_facts": COUNT,
        "rewritten_rule_bodies": COUNT,
        "affected_rule_ids": NAMES,
        "cross_memory_impact": _object(
            {
                "rewritten": _array(
                    _object({"memory": {"type": "string"}, "rules_updated": COUNT})
                ),
                "warnings": _array(
                    _object(
                        {
                            "memory": {"type": "string"},
                            "refs": COUNT,
                            "reason": {"type": "string"},
                        }
                    )
                ),
                "skipped_readonly": _array(
                    _object(
                        {
                            "memory": {"type": "string"},
                            "refs": COUNT,
                            "reason": {"type": "string"},
                        }
                    )
                ),
            }
        ),
        "is_error": {"type": "boolean"},
    }
)

TRACE = _object(
    {"nodes": _array(TERM_VALUE)},
    "The distinct nodes reachable from the start node, in the order found.",
)

VIOLATIONS = _object({"violations": _array(TERM_VALUE), "truncated": {"type": "boolean"}})

EXPLANATION = _object(
    {
        "fact": {"type": "string"},
        "proven": {"type": "boolean"},
        "nodes": _array(
            _object(
                {
                    "id": COUNT,
                    "parent": _nullable(COUNT),
                    "goal": {"type": "string"},
                    "rule_applied": {"type": "string"},
                    "truncated": {"type": "boolean"},
                }
            )
        ),
    },
    "The first proof, flat: its nodes in pre-order (the root first, id 0, parent null); "
    "a node's children follow it in order. No nodes when the fact is not proven.",
)

HANDLE: Schema = {
    "description": "A clause handle: stable for the clause's lineage.",
    "type": "integer",
    "minimum": 1,
}
_TEXT_OR_NULL: Schema = {"type": ["string", "null"]}
PROVENANCE: Schema = {
    "description": "Where a clause came from: the tool, client and time that stored it, "
    "or the knowledge file and line; the assumptions that support it now.",
    "type": "object",
    "properties": {
        "tool": _TEXT_OR_NULL,
        "client": _TEXT_OR_NULL,
        "at": _TEXT_OR_NULL,
        "file": {"type": "string"},
        "line": {"type": "integer", "minimum": 1},
        "assumptions": NAMES,
    },
    "required": ["tool", "client", "at", "assumptions"],
    "additionalProperties": False,
}
ASSERTED = _object({"handle": HANDLE, "already_there": {"type": "boolean"}})
EXCEPTING_HANDLES = _object(
    {"excepting_handles": _array(HANDLE)},
    "The handles of the new withdrawal records, in the order of the withdrawn clauses.",
)
EXCEPTING_HANDLE = _object(
    {"excepting_handle": _nullable(HANDLE)},
    "The handle of the new withdrawal record; null when the memory holds no such clause.",
)
MATCHING = _object(
    {
        "rows": _array(
            _object(
                {
                    "sentence": {"type": "string"},
                    "context": {"type": "string"},
                    "handle": HANDLE,
                    "asserted": {"type": "boolean"},
                    "provenance": PROVENANCE,
                }
            )
        ),
        "count": COUNT,
        "truncated": {"type": "boolean"},
    }
)

_JUSTIFICATION_NODE = _object(
    {
        "id": COUNT,
        "parent": _nullable(COUNT),
        "goal": {"type": "string"},
        "rule_applied": {"type": "string"},
        "handle": HANDLE,
        "truncated": {"type": "boolean"},
    }
)
_JUSTIFICATION_NODE["required"] = ["id", "parent", "goal", "rule_applied", "truncated"]
HANDLED_PROOF = _object(
    {"nodes": _array(_JUSTIFICATION_NODE)},
    "A proof, flat: its nodes in pre-order (the root first, id 0, parent null); each "
    "node a stored clause proved names that clause's handle (built-ins have none).",
)
VERB_QUERY = _object(
    {
        "answers": _array(
            _object(
                {
                    "bindings": {
                        "type": "object",
                        "description": "Each named variable of the goal and its value as "
                        "Prolog text.",
                        "additionalProperties": {"type": "string"},
                    },
                    "justification": _nullable(HANDLED_PROOF),
                }
            )
        ),
        "truncated": {"type": "boolean"},
    }
)

_STORED_SENTENCE = {
    "handle": HANDLE,
    "sentence": {"type": "string"},
    "context": {"type": "string"},
}
DEFEAT = _object(
    {
        "kind": {"const": "defeat"},
        "loser": _object(_STORED_SENTENCE),
        "winners": _array(
            _object(
                {
                    **_STORED_SENTENCE,
                    "defeat_class": {"const": "functional"},
                    "rules": NAMES,
                }
            )
        ),
        "placed_in": NAMES,
    },
    "A stored fact that knowledge defeats: the loser, the knowledge-file facts that win "
    "and the rule that makes them win, and the memories the rule holds in.",
)
_ARGUE_NODE = _object(
    {
        **_JUSTIFICATION_NODE["properties"],
        "defeat": DEFEAT,
    }
)
_ARGUE_NODE["required"] = _JUSTIFICATION_NODE["required"]
INFERENCE = _object(
    {
        "kind": {"const": "inference"},
        "tree": _object({"nodes": _array(_ARGUE_NODE)}),
    },
    "A proof against, flat as a justification: of the goal's denial neg(Goal), or, for a "
    "conjunction, a conjunction node over the against side of its first conjunct that has "
    "one (a defeated conjunct is a defeat node carrying its defeat).",
)
ARGUED = _object(
    {
        "verdict": {"enum": ["true", "false", "both", "unknown"]},
        "for_justification": _nullable(HANDLED_PROOF),
        "against_justification": {"anyOf": [INFERENCE, DEFEAT, {"type": "null"}]},
    }
)

_MERGE_OP = {"enum": ["store", "withdraw", "remove", "support", "unsupport"]}
_SKIPPED = _object(
    {
        "handle": HANDLE,
        "op": _MERGE_OP,
        "sentence": {"type": "string"},
        "assumption": _TEXT_OR_NULL,
        "reason": {"type": "string"},
    }
)
_SKIPPED["required"] = ["handle", "op", "sentence", "reason"]
_SIDE_CHANGE = _object(
    {
        "change": {"enum": ["rename", "withdraw", "remove", "update"]},
        "sentences": NAMES,
    },
    "What one side did to the clause: renamed it (sentences: the clause now), withdrew "
    "or removed it, or updated it (sentences: its new facts, same predicate and first "
    "argument).",
)
CONFLICT = _object(
    {
        "handle": HANDLE,
        "sentence": {"type": "string"},
        "base": _SIDE_CHANGE,
        "fork": _SIDE_CHANGE,
        "winner": _nullable({"enum": ["base", "fork"]}),
    },
    "A clause of the fork point that the base and the fork both changed, differently.",
)
MERGED = _object(
    {
        "fork": {"type": "string"},
        "into": {"type": "string"},
        "applied": _object(
            {"stored": COUNT, "withdrawn": COUNT, "removed": COUNT, "supports": COUNT}
        ),
        "skipped": _array(_SKIPPED),
        "operations": {
            **_array(
                {
                    "type": "object",
                    "properties": {
                        "op": _MERGE_OP,
                        "handle": HANDLE,
                        "sentence": {"type": "string"},
                        "assumption": _TEXT_OR_NULL,
                        "assumptions": NAMES,
                        "plain": {"type": "boolean"},
                    },
                    "required": ["op", "handle", "sentence"],
                    "additionalProperties": False,
                }
            ),
            "description": "The applied operations in order (at most 100); support and "
            "unsupport name the assumption (null: the plain assertion); a store under "
            "assumptions lists them (plain: whether it is asserted plainly too), a removal "
            "or withdrawal lists the assumptions that lose the clause.",
        },
        "dry_run": {"type": "boolean"},
        "conflicts": {**_array(CONFLICT), "description": "At most 100, in the point's order."},
        "blocked": {
            **_nullable({"type": "string"}),
            "description": "Why nothing was applied (a conflict has no winner), else null.",
        },
    },
    "A merge of a fork into its base: what was (or, in a dry run, would be) applied, "
    "the operations skipped because they no longer apply to the base, and the conflicts.",
)
MERGED["properties"]["described"] = {
    **NAMES,
    "description": "The predicates (name/arity) whose description the merge sets or removes "
    "in the base (only when there are any).",
}

_SEARCH_PLACE: Schema = {"enum": ["predicate", "description", "argument", "body"]}
_FOUND = _described(
    {
        "memory": {"type": "string"},
        "predicate": {"type": "string", "description": "The predicate as name/arity."},
        "handle": {
            **_nullable(HANDLE),
            "description": "The clause's handle; null for a described predicate without clauses.",
        },
        "clause": {
            "type": ["string", "null"],
            "description": "The clause as Prolog text; null for a described predicate without "
            "clauses.",
        },
        "matched": _array(
            _object(
                {
                    "word": {"type": "string"},
                    "in": _SEARCH_PLACE,
                    "part": {"type": "string"},
                },
                "A query word, where it matched best, and the word part it matched.",
            )
        ),
    }
)
_FOUND["properties"]["file"] = {
    "type": "string",
    "description": "The knowledge file and line of a knowledge-file clause.",
}
SEARCH = _object(
    {
        "results": _array(_FOUND),
        "count": COUNT,
        "total": {**COUNT, "description": "How many results there are in all pages."},
        "next_cursor": {
            **_nullable(COUNT),
            "description": "The cursor of the next page; null on the last page.",
        },
    },
    "The clauses that mention the query's words, best first (see search_facts).",
)
