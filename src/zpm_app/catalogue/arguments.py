"""Validation of tool arguments against a tool's input schema (fail closed).

Every tool call passes through ``validate_arguments`` before any work is
done.  Failures raise ``InvalidArguments``, whose result text is always
``InvalidArguments`` (the tool reference's text); its ``detail`` (the
result's second text item, and the CLI's explanation) says which argument
is wrong and how to fix it: a missing one with its description, a mistyped
one with the value given, an unknown one with the closest valid name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from difflib import get_close_matches
from typing import Any

from zpm_app.catalogue.tool_catalogue import ToolDefinition
from zpm_domain.errors import InvalidArguments

_JSON_TYPE_NAMES = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}


def validate_arguments(
    spec: ToolDefinition, arguments: Mapping[str, Any] | None, max_input_bytes: int
) -> dict[str, Any]:
    """Check ``arguments`` against ``spec`` and return the cleaned arguments.

    Rules, in order:

    * ``None`` stands for no arguments; anything else must be a mapping;
    * an argument the schema does not declare is refused;
    * ``null`` counts as absent: a required argument that is absent or null
      is refused, an optional one is dropped from the result;
    * the JSON type must match the schema exactly: a boolean is not an
      integer, a number is not a string; an integer may arrive as an
      integral float (``3.0``) and is returned as ``int``;
    * a required string must contain non-whitespace text unless its name is
      in ``spec.allow_empty``;
    * no string may exceed ``max_input_bytes`` bytes in UTF-8.

    The result keeps the caller's order and holds only present arguments.
    """
    if arguments is None:
        arguments = {}
    elif not isinstance(arguments, Mapping):
        raise InvalidArguments(f"arguments must be an object, not {_a(_json_type(arguments))}")
    properties = spec.properties
    cleaned: dict[str, Any] = {}
    for name, value in arguments.items():
        schema = properties.get(name)
        if schema is None:
            raise InvalidArguments(_unknown(spec, name))
        if value is None:
            continue
        cleaned[name] = _checked(spec, name, schema, value, max_input_bytes)
    for name in spec.required:
        if name not in cleaned:
            description = properties[name].get("description")
            about = f": {description}" if description else ""
            raise InvalidArguments(f"missing required argument '{name}'{about}")
    return cleaned


def _unknown(spec: ToolDefinition, name: str) -> str:
    known = list(spec.properties)
    close = get_close_matches(name, known, n=1, cutoff=0.6)
    suggestion = f"; did you mean '{close[0]}'?" if close else ""
    accepted = ", ".join(known) if known else "none"
    return f"unknown argument '{name}' for tool {spec.name}{suggestion} (it takes: {accepted})"


def _checked(
    spec: ToolDefinition, name: str, schema: Mapping[str, Any], value: Any, max_input_bytes: int
) -> Any:
    expected = schema.get("type")
    if expected == "string":
        if not isinstance(value, str):
            raise _wrong_type(name, expected, value)
        if name in spec.required and name not in spec.allow_empty and not value.strip():
            raise InvalidArguments(f"argument '{name}' must not be empty")
        _check_size(name, value, max_input_bytes)
        return value
    if expected == "integer":
        if isinstance(value, bool):
            raise _wrong_type(name, expected, value)
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise _wrong_type(name, expected, value)
    if expected == "boolean":
        if not isinstance(value, bool):
            raise _wrong_type(name, expected, value)
        return value
    if expected == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _wrong_type(name, expected, value)
        return value
    raise InvalidArguments(f"argument '{name}' has an unsupported schema type {expected!r}")


def _check_size(name: str, value: str, max_input_bytes: int) -> None:
    # A UTF-8 character takes at most 4 bytes: short strings need no encoding.
    if len(value) * 4 <= max_input_bytes:
        return
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > max_input_bytes:
        raise InvalidArguments(
            f"argument '{name}' is too large: {size} bytes in UTF-8 "
            f"(the limit is {max_input_bytes} bytes)"
        )


def _wrong_type(name: str, expected: str, value: Any) -> InvalidArguments:
    given = _json_type(value)
    return InvalidArguments(
        f"argument '{name}' must be {_a(expected)}, not {_a(given)}: {_shown(value)}"
    )


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


def _shown(value: Any, limit: int = 60) -> str:
    """``value`` as JSON, cut to about ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _json_type(value: Any) -> str:
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)
