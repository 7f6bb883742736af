"""The JSON Schemas of the tools' structured results, derived from their typed shapes.

The domain declares each result as a ``TypedDict`` (``zpm_domain.tools.outputs``,
``zpm_domain.tools.verb_outputs``) with ``Annotated`` metadata of its own
(``Doc``, ``Minimum``, ``TYPE_LIST``).  :func:`output_schema` hands the shape
to pydantic (``TypeAdapter(...).json_schema()``), translating the domain's
metadata into pydantic's, then writes the result the way ``tools/list`` has
always sent it: every part inline (``zpm_app.catalogue.schema_refs`` makes the shared
parts references again), no titles, closed objects, ``enum`` and ``const``
without a type, and the keywords in one fixed order (a leading description
first, for named parts).  The order matters: clients receive these bytes.

Deriving every tool's schema costs a server about 50 ms at each start, so
the derived schemas are recorded in ``output_schemas.json`` beside this
module (``tools/record_output_schemas.py`` writes it again) and read from
there; a shape the record lacks is derived.  ``tests/app/test_output_schemas.py``
fails while the record differs from the derivation.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Annotated, Any, NotRequired, Required, Union

from zpm_domain.tools.outputs import Doc, Minimum, TypeList

_LEAD = "x-zpm-lead"
_TYPE_LIST = "x-zpm-type-list"
_ORDER = ("type", "properties", "required", "items", "minimum", "anyOf", "const", "enum")


RECORD = Path(__file__).with_name("output_schemas.json")
"""The recorded schemas, by :func:`shape_key`."""


@cache
def output_schema(shape: type) -> dict[str, Any]:
    """The JSON Schema (2020-12) of the ``TypedDict`` ``shape``, every part
    inline: as recorded (see the module doc), else as :func:`derive` gives it."""
    recorded: dict[str, Any] | None = _recorded().get(shape_key(shape))
    return derive(shape) if recorded is None else recorded


def derive(shape: type) -> dict[str, Any]:
    """:func:`output_schema` of ``shape``, derived now.

    Raises ``TypeError`` for a shape pydantic cannot describe, ``ValueError``
    for a schema keyword this module does not place.
    """
    from pydantic import TypeAdapter  # costly: only when a schema is derived

    raw = TypeAdapter(_Translation().of(shape)).json_schema()
    return _tidy(_inline(raw, raw.get("$defs", {})))


def shape_key(shape: type) -> str:
    """The name a shape's schema is recorded under."""
    return f"{shape.__module__}.{shape.__qualname__}"


def record_text(shapes: Iterable[type]) -> str:
    """The text of :data:`RECORD` for ``shapes``: each one's schema, derived."""
    derived = {shape_key(shape): derive(shape) for shape in shapes}
    return json.dumps(dict(sorted(derived.items())), indent=1, ensure_ascii=False) + "\n"


@cache
def _recorded() -> dict[str, Any]:
    try:
        found: dict[str, Any] = json.loads(RECORD.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return found


class _Translation:
    """The domain's shape as pydantic reads it: ``typing_extensions.TypedDict``
    classes (pydantic's requirement before Python 3.12), pydantic ``Field``
    metadata instead of the domain's, each class translated once."""

    def __init__(self) -> None:
        self._classes: dict[type, Any] = {}

    def of(self, hint: Any) -> Any:
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if typing.is_typeddict(hint):
            return self._typed_dict(hint)
        if origin is Annotated:
            return Annotated[self.of(args[0]), _field(args[1:])]
        if origin in (Union, types.UnionType):
            return Union[tuple(self.of(a) for a in args)]  # noqa: UP007 (a runtime union)
        if origin is list:
            return list[self.of(args[0])]  # type: ignore[misc]
        if origin is dict:
            return dict[str, self.of(args[1])]  # type: ignore[misc]
        return hint

    def _typed_dict(self, cls: Any) -> Any:
        import typing_extensions

        if cls not in self._classes:
            fields: dict[str, Any] = {}
            for name, hint in typing.get_type_hints(cls, include_extras=True).items():
                # The wrapper, not __required_keys__: Python 3.11 misses
                # NotRequired in postponed annotations.
                optional = typing.get_origin(hint) is NotRequired
                if typing.get_origin(hint) in (NotRequired, Required):
                    hint = typing.get_args(hint)[0]
                made = self.of(hint)
                fields[name] = NotRequired[made] if optional else made
            translated = typing_extensions.TypedDict(cls.__name__, fields)  # type: ignore[misc]
            translated.__doc__ = " ".join(cls.__doc__.split()) if cls.__doc__ else None
            self._classes[cls] = translated
        return self._classes[cls]


def _field(metadata: tuple[Any, ...]) -> Any:
    """One pydantic ``Field`` carrying the domain's ``Annotated`` metadata."""
    from pydantic import Field

    description: str | None = None
    minimum: int | None = None
    extra: dict[str, Any] = {}
    for item in metadata:
        if isinstance(item, Doc):
            description = item.text
            if item.first:
                extra[_LEAD] = True
        elif isinstance(item, Minimum):
            minimum = item.value
        elif isinstance(item, TypeList):
            extra[_TYPE_LIST] = True
        else:
            raise TypeError(f"unknown output metadata {item!r}")
    return Field(description=description, ge=minimum, json_schema_extra=extra or None)


def _inline(node: Any, definitions: dict[str, Any]) -> Any:
    """``node`` with each ``$ref`` replaced by its definition (its siblings kept)."""
    if isinstance(node, list):
        return [_inline(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = _inline(definitions[ref.removeprefix("#/$defs/")], definitions)
        return {**target, **{k: _inline(v, definitions) for k, v in node.items() if k != "$ref"}}
    return {k: _inline(v, definitions) for k, v in node.items() if k != "$defs"}


def _tidy(schema: dict[str, Any]) -> dict[str, Any]:
    """One (sub)schema as ``tools/list`` writes it (see the module docstring)."""
    rest = {k: v for k, v in schema.items() if k not in ("title", _LEAD, _TYPE_LIST)}
    if "enum" in rest or "const" in rest:
        rest.pop("type", None)
    if schema.get(_TYPE_LIST):
        rest["type"] = [member["type"] for member in rest.pop("anyOf")]
    if "properties" in rest:
        rest["properties"] = {k: _tidy(v) for k, v in rest["properties"].items()}
        rest["additionalProperties"] = False
    for key in ("items", "additionalProperties"):
        if isinstance(rest.get(key), dict):
            rest[key] = _tidy(rest[key])
    if "anyOf" in rest:
        rest["anyOf"] = [_tidy(member) for member in rest["anyOf"]]
    return _ordered(rest, lead=bool(schema.get(_LEAD)))


def _ordered(schema: dict[str, Any], *, lead: bool) -> dict[str, Any]:
    """``schema``'s keywords in the fixed order: a leading description, the
    :data:`_ORDER` keywords (a closed object's ``additionalProperties: false``
    after ``required``), the description, then a map's ``additionalProperties``."""
    ordered: dict[str, Any] = {}
    if lead and "description" in schema:
        ordered["description"] = schema["description"]
    for key in _ORDER:
        if key in schema:
            ordered[key] = schema[key]
        if key == "required" and schema.get("additionalProperties") is False:
            ordered["additionalProperties"] = False
    if "description" in schema:
        ordered.setdefault("description", schema["description"])
    if isinstance(schema.get("additionalProperties"), dict):
        ordered["additionalProperties"] = schema["additionalProperties"]
    unplaced = set(schema) - set(ordered)
    if unplaced:
        raise ValueError(f"output schema keywords without a place: {sorted(unplaced)}")
    return ordered
