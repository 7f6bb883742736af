"""How a tool is defined: once, as a method of the service group that runs it.

A tool is a method of a :class:`ToolGroup` marked with :func:`tool`.  The
method's signature is the tool's input model: each parameter after ``self``
is one argument, annotated ``Annotated[<type>, Arg("description")]``, with
``str``, ``int``, ``bool`` or ``float`` as the type (``X | None = None`` for
an optional argument).  Everything else that names or describes a tool
derives from the :class:`ToolDefinition` built from it: the JSON input
schema (``additionalProperties: false``), argument validation, dispatch,
the CLI subcommand and its flags, and ``docs/tools.md``::

    class KnowledgeTools(ToolGroup):
        @tool(CHANGE, "Assert a Prolog fact into the knowledge base. ...")
        def remember_fact(
            self, fact: Annotated[str, Arg("A Prolog fact to assert")], memory: MemoryArg = None
        ) -> str: ...

A tool method returns the tool's success text, or raises a ``ZpmError``
whose message is the error text.  A tool whose text is JSON returns a
:class:`Reply` of the typed shape of its structured form, and says so in its
return annotation (``-> Reply[Asserted]``, a ``TypedDict`` of
``zpm_domain.tools.outputs`` or ``verb_outputs``): the text, unchanged, and
the same data as an object (``structuredContent``), shaped for clients (flat
where the text nests deeply, an object where the text is an array).  The
type checker holds the data to the shape, and the application derives the
MCP ``outputSchema`` from the same shape, so the two cannot drift apart.

A success may carry notes for the client (a stored fact that is defeated,
a capitalised name that became a variable): :class:`Noted` for a text,
``Reply.with_notes`` for a reply.  Each note is one text item after the
first, which stays the tool's text.

Each group names the tool set it belongs to (``ToolGroup.toolset``):
``core`` (the tool reference's tools and what completes them) or ``verbs``;
``zpm serve --tools`` offers a selection of sets and tools.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Annotated, Any, ClassVar, Generic, TypeVar, Union

from zpm_domain.limits import Limits
from zpm_domain.tools.jsontext import dumps

if typing.TYPE_CHECKING:
    from zpm_domain.memory.mounts import Memories

MEMORY_DESCRIPTION = "Target memory segment (optional, defaults to default memory)"

_JSON_TYPES: dict[type, str] = {str: "string", int: "integer", bool: "boolean", float: "number"}
_MARK = "__zpm_tool__"


@dataclass(frozen=True, slots=True)
class Arg:
    """The description of one tool argument (``Annotated`` metadata).

    ``allow_empty``: a required string argument may be ``""`` (only
    ``echo.message``); every other required string must carry text.
    """

    description: str
    allow_empty: bool = False
    name: str | None = None
    """The argument's name when the parameter cannot have it (``from``)."""


MemoryArg = Annotated[str | None, Arg(MEMORY_DESCRIPTION)]
"""The optional ``memory`` argument with the standard description."""


Shape = TypeVar("Shape", bound=Mapping[str, object])
"""The ``TypedDict`` of a tool's structured result."""


@dataclass(frozen=True, slots=True)
class Reply(Generic[Shape]):
    """A tool's success: ``text`` (the spec's) and ``structured``, the same
    data as a JSON object of the tool's shape (the ``TypedDict`` ``Shape``)."""

    text: str
    structured: Shape
    notes: tuple[str, ...] = ()
    """Notes for the client, each a text item after the first."""

    @classmethod
    def of(cls, value: Shape) -> Reply[Shape]:
        """A reply whose text is ``value`` as compact JSON."""
        return cls(dumps(value), value)

    def with_notes(self, *notes: str | None) -> Reply[Shape]:
        """This reply with ``notes`` added (``None`` entries are left out)."""
        return replace(self, notes=(*self.notes, *(n for n in notes if n is not None)))


@dataclass(frozen=True, slots=True)
class Noted:
    """A tool's success text with notes for the client: each note is a text
    item after the first, which stays the spec's text."""

    text: str
    notes: tuple[str, ...]

    def __post_init__(self) -> None:
        if isinstance(self.notes, str):  # one note given bare: still one text item
            object.__setattr__(self, "notes", (self.notes,))


def noted(text: str, *notes: str | None) -> str | Noted:
    """``text`` with the ``notes`` that are not ``None``; the bare text when none is."""
    kept = tuple(n for n in notes if n is not None)
    return Noted(text, kept) if kept else text


@dataclass(frozen=True, slots=True)
class Hints:
    """The MCP annotations of a tool (architecture §8.15)."""

    read_only: bool
    destructive: bool
    idempotent: bool


QUERY = Hints(read_only=True, destructive=False, idempotent=True)
"""Reads only."""
CHANGE = Hints(read_only=False, destructive=True, idempotent=False)
"""Changes a knowledge base; calling it twice changes it twice."""
CHANGE_IDEMPOTENT = Hints(read_only=False, destructive=True, idempotent=True)
"""Changes a knowledge base; calling it again with the same arguments changes nothing more."""
ADD_IDEMPOTENT = Hints(read_only=False, destructive=False, idempotent=True)
"""Adds and never removes; the same call twice changes nothing more (``assert``)."""
ADMINISTER = Hints(read_only=False, destructive=False, idempotent=False)
"""Changes what is mounted or on disk without removing knowledge."""


@dataclass(frozen=True, slots=True)
class Param:
    """One argument of a tool, as the signature declares it."""

    name: str
    json_type: str
    description: str
    required: bool
    allow_empty: bool = False
    keyword: str = ""
    """The method's parameter (the argument's name, unless ``Arg.name`` renamed it)."""

    def schema(self) -> dict[str, Any]:
        return {"type": self.json_type, "description": self.description}


@dataclass(frozen=True)
class ToolDefinition:
    """Everything about one tool, derived from its marked method.

    ``run`` is that method, the function of ``group``'s class body that runs
    the tool: :meth:`handler` binds it to a group, and it is called with the
    validated arguments as keywords.
    """

    name: str
    description: str
    hints: Hints
    params: tuple[Param, ...]
    group: type[ToolGroup] | None = None
    run: Callable[..., Any] | None = field(default=None, repr=False)
    output: type | None = field(default=None, hash=False, compare=False)
    """The ``TypedDict`` shape of the structured result (``zpm_domain.tools.outputs``)."""
    schema_of: Callable[[type], Mapping[str, Any]] | None = field(
        default=None, hash=False, compare=False, repr=False
    )
    """How the application turns ``output`` into its JSON Schema
    (``zpm_app.catalogue.output_schemas``); see :attr:`output_schema`."""
    details: str = field(default="", compare=False)
    """More about the tool for people: ``docs/tools.md`` and the CLI's help
    show it after the description; ``tools/list`` does not send it."""
    cli_aliases: tuple[str, ...] = field(default=(), compare=False)
    """Shorter names of its CLI subcommand (``zpm diff`` for ``diff-memory``)."""
    input_schema: dict[str, Any] = field(init=False, hash=False, compare=False)

    def __post_init__(self) -> None:
        schema = {
            "type": "object",
            "properties": {p.name: p.schema() for p in self.params},
            "required": [p.name for p in self.params if p.required],
            "additionalProperties": False,
        }
        object.__setattr__(self, "input_schema", schema)

    @cached_property
    def output_schema(self) -> Mapping[str, Any] | None:
        """The JSON Schema of the structured result (MCP ``outputSchema``),
        derived from ``output`` when first read; ``None`` for a tool without
        structured output.  Raises ``LookupError`` for a tool with a shape
        but no ``schema_of``."""
        if self.output is None:
            return None
        if self.schema_of is None:
            raise LookupError(f"tool {self.name}: no way to derive its output schema")
        return self.schema_of(self.output)

    @property
    def read_only(self) -> bool:
        return self.hints.read_only

    @property
    def destructive(self) -> bool:
        return self.hints.destructive

    @property
    def idempotent(self) -> bool:
        return self.hints.idempotent

    @property
    def cli_name(self) -> str:
        """The CLI subcommand: the name in kebab case (``remember-fact``)."""
        return self.name.replace("_", "-")

    @cached_property
    def properties(self) -> Mapping[str, Mapping[str, Any]]:
        """Argument name -> its JSON Schema, in declaration order."""
        props: Mapping[str, Mapping[str, Any]] = self.input_schema["properties"]
        return props

    @cached_property
    def required(self) -> tuple[str, ...]:
        """Names of the required arguments, in declaration order."""
        return tuple(p.name for p in self.params if p.required)

    @cached_property
    def allow_empty(self) -> frozenset[str]:
        return frozenset(p.name for p in self.params if p.allow_empty)

    def handler(self, group: ToolGroup) -> Callable[..., Any]:
        """The tool's method bound to ``group``, an instance of :attr:`group`
        (``TypeError`` for a tool of no group, or a group of another class)."""
        if self.run is None or self.group is None or not isinstance(group, self.group):
            raise TypeError(f"tool {self.name} is not run by {type(group).__name__}")
        return types.MethodType(self.run, group)

    def keywords(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Validated ``arguments`` as the method's keyword arguments."""
        renamed = {p.name: p.keyword for p in self.params if p.keyword and p.keyword != p.name}
        return {renamed.get(name, name): value for name, value in arguments.items()}


@dataclass(frozen=True)
class ToolContext:
    """What every tool group is built with: the mounted memories and the limits."""

    memories: Memories
    limits: Limits


CORE = "core"
"""The tool set of the tool reference's tools and of zpm's additions around them."""
VERBS = "verbs"
"""The tool set of the verb tools (handles, withdrawals, argue) and of forks."""


class ToolGroup:
    """A service whose marked methods are tools (see the module docstring)."""

    toolset: ClassVar[str] = CORE
    """The tool set the group's tools belong to (``CORE`` or ``VERBS``)."""

    def __init__(self, context: ToolContext) -> None:
        self.context = context


F = TypeVar("F", bound=Callable[..., "str | Reply[Any] | Noted"])


def tool(
    hints: Hints,
    description: str,
    *,
    name: str | None = None,
    details: str = "",
    cli_aliases: tuple[str, ...] = (),
) -> Callable[[F], F]:
    """Mark a :class:`ToolGroup` method as tool ``name`` (default: the method's
    name); ``details`` says more for people (``ToolDefinition.details``),
    keeping ``description`` short for clients; ``cli_aliases``: shorter
    names of its CLI subcommand.  A method annotated to return
    ``Reply[Shape]`` has structured output of that shape (:func:`output_shape`)."""

    def mark(func: F) -> F:
        setattr(func, _MARK, (name or func.__name__, description, hints, details, cli_aliases))
        return func

    return mark


def definitions(group: type[ToolGroup]) -> tuple[ToolDefinition, ...]:
    """The tools of ``group`` in the order its class body defines them."""
    found = []
    for member in vars(group).values():
        mark = getattr(member, _MARK, None)
        if mark is not None:
            name, description, hints, details, aliases = mark
            found.append(
                ToolDefinition(
                    name=name,
                    description=description,
                    hints=hints,
                    params=signature_params(member),
                    group=group,
                    run=member,
                    output=output_shape(member),
                    details=details,
                    cli_aliases=aliases,
                )
            )
    return tuple(found)


def output_shape(func: Callable[..., Any]) -> type | None:
    """The shape of a tool method's structured result: ``Shape`` when it is
    annotated to return ``Reply[Shape]``, ``None`` when it returns text.
    Raises ``TypeError`` for a bare ``Reply`` (its shape unsaid)."""
    returned = typing.get_type_hints(func).get("return")
    if returned is Reply:
        raise TypeError(f"{func.__qualname__}: annotate it -> Reply[<its TypedDict>]")
    if typing.get_origin(returned) is not Reply:
        return None
    (shape,) = typing.get_args(returned)
    if not typing.is_typeddict(shape):
        raise TypeError(f"{func.__qualname__}: Reply[...] takes a TypedDict, not {shape!r}")
    return shape  # type: ignore[no-any-return]


def signature_params(func: Callable[..., Any]) -> tuple[Param, ...]:
    """The tool arguments a method's signature declares (``self`` excluded).

    Raises ``TypeError`` for a parameter that is not annotated
    ``Annotated[<type>, Arg(...)]`` with a JSON-representable type, or that
    is optional without defaulting to ``None``.
    """
    hints = typing.get_type_hints(func, include_extras=True)
    params = []
    for parameter in list(inspect.signature(func).parameters.values())[1:]:
        annotation = hints.get(parameter.name)
        where = f"{func.__qualname__}({parameter.name})"
        if typing.get_origin(annotation) is not Annotated:
            raise TypeError(f"{where}: annotate it Annotated[<type>, Arg(...)]")
        base, *extras = typing.get_args(annotation)
        arg = next((e for e in extras if isinstance(e, Arg)), None)
        if arg is None:
            raise TypeError(f"{where}: no Arg(...) description")
        kind, optional = _json_type(base, where)
        required = parameter.default is inspect.Parameter.empty
        if optional == required or (optional and parameter.default is not None):
            raise TypeError(f"{where}: optional arguments are `X | None = None`")
        params.append(
            Param(
                arg.name or parameter.name,
                kind,
                arg.description,
                required,
                arg.allow_empty,
                parameter.name,
            )
        )
    return tuple(params)


def _json_type(base: Any, where: str) -> tuple[str, bool]:
    """``(json type, optional)`` of ``base`` (``X`` or ``X | None``)."""
    optional = False
    if typing.get_origin(base) in (Union, types.UnionType):
        members = [m for m in typing.get_args(base) if m is not type(None)]
        optional = len(members) < len(typing.get_args(base))
        if len(members) != 1:
            raise TypeError(f"{where}: one JSON type per argument")
        base = members[0]
    kind = _JSON_TYPES.get(base)
    if kind is None:
        raise TypeError(f"{where}: {base!r} is not str, int, bool or float")
    return kind, optional
