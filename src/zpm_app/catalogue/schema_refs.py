"""Output schemas as ``tools/list`` sends them: each repeated part once.

The output schemas of the tool definitions are written out in full, so the
same part (a proof node, a defeat, a clause handle) appears wherever it is
used: ``argue``'s schema holds the defeat object three times.  A client pays
for every byte of ``tools/list`` on every turn, so :func:`with_refs` moves
each object schema that occurs more than once (and is big enough to be worth
a reference) into ``$defs`` and refers to it with ``{"$ref": "#/$defs/NAME"}``,
which JSON Schema validators (draft 2020-12, as MCP specifies) resolve.

The result is a schema that accepts exactly the same documents.  Names come
from the property under which a part first appears (``defeat``, ``handle``;
``node2`` when two different parts would share a name), so the same
definitions always give the same text.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

MIN_SIZE = 60
"""Parts shorter than this (in compact JSON characters) stay inline: a
reference and its definition would cost more than they save."""

_NESTED = ("properties", "$defs", "patternProperties")
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def with_refs(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with every repeated part of at least :data:`MIN_SIZE`
    characters moved into ``$defs`` (a schema that already has ``$defs`` or
    ``$ref`` is returned as it is)."""
    if "$defs" in schema or any(key == "$ref" for key, _ in _walk_keys(schema)):
        return dict(schema)
    counts = Counter(_key(part) for _, part in _parts(schema, "root"))
    shared = {key for key, count in counts.items() if count > 1 and len(key) >= MIN_SIZE}
    if not shared:
        return dict(schema)
    names: dict[str, str] = {}
    for label, part in _parts(schema, "root"):
        key = _key(part)
        if key in shared and key not in names:
            names[key] = _fresh(label, set(names.values()))
    definitions: dict[str, Any] = {}
    compact = _replace(schema, names, definitions, top=True)
    compact["$defs"] = definitions
    return _inline_single_uses(compact)


def _inline_single_uses(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the definitions referred to only once put back in
    place (a part repeated only inside one repeated part)."""
    definitions: dict[str, Any] = schema["$defs"]
    uses = Counter(value for key, value in _walk_keys(schema) if key == "$ref")
    single = {name for name in definitions if uses[f"#/$defs/{name}"] == 1}

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.removeprefix("#/$defs/") in single:
                return inline(definitions[ref.removeprefix("#/$defs/")])
            return {k: inline(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    kept = {name: inline(part) for name, part in definitions.items() if name not in single}
    result: dict[str, Any] = inline(schema)
    if kept:
        result["$defs"] = kept
    return result


def _replace(
    node: Any, names: Mapping[str, str], definitions: dict[str, Any], *, top: bool = False
) -> Any:
    """``node`` with each shared part replaced by its reference; the parts go
    into ``definitions`` (with their own shared parts replaced too)."""
    if isinstance(node, dict):
        key = _key(node)
        if not top and key in names:
            name = names[key]
            if name not in definitions:
                definitions[name] = {}  # reserved before recursing: keeps the order of first use
                definitions[name] = _replace(node, names, definitions, top=True)
            return {"$ref": f"#/$defs/{name}"}
        return {k: _replace_child(k, v, names, definitions) for k, v in node.items()}
    return node


def _replace_child(
    key: str, value: Any, names: Mapping[str, str], definitions: dict[str, Any]
) -> Any:
    if key in _NESTED and isinstance(value, dict):
        return {k: _replace(v, names, definitions) for k, v in value.items()}
    if key in _LISTS and isinstance(value, list):
        return [_replace(v, names, definitions) for v in value]
    if key in ("items", "additionalProperties", "not", "contains") and isinstance(value, dict):
        return _replace(value, names, definitions)
    return value


def _parts(node: Any, label: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema below ``node`` (not ``node`` itself), depth first, with
    the name of the property it belongs to."""
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key in _NESTED and isinstance(value, dict):
            for name, child in value.items():
                yield from _part(child, name)
        elif key in _LISTS and isinstance(value, list):
            for child in value:
                yield from _part(child, label)
        elif key in ("items", "additionalProperties", "not", "contains"):
            yield from _part(value, f"{label}_item" if key == "items" else label)


def _part(node: Any, label: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield label, node
        yield from _parts(node, label)


def _walk_keys(node: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from _walk_keys(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk_keys(value)


def _key(node: Any) -> str:
    return json.dumps(node, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _fresh(label: str, taken: set[str]) -> str:
    base = "".join(c if c.isalnum() or c == "_" else "_" for c in label) or "part"
    name, number = base, 1
    while name in taken:
        number += 1
        name = f"{base}{number}"
    return name
