"""``format/3`` into a term: ``atom(A)``, ``string(S)``, ``codes(C)``,
``codes(C, Tail)``, ``chars(C)``, ``chars(C, Tail)``.

Nothing is ever written to a stream: any other first argument is answered
as SWI-Prolog answers a stream that does not exist,
``existence_error(stream, Sink)``.

Column directives work on the current output line: ``~N|`` sets a column
stop at column ``N``, ``~N+`` at ``N`` (default 8) past the previous stop;
the text since the previous stop is padded at its ``~t`` fill points (or on
the right when it has none).  Padding that does not divide evenly goes to
the fill points from the middle on, as in SWI-Prolog.
"""

from __future__ import annotations

from typing import Any

from zpm_adapters.engine_python.builtins import swi_write
from zpm_adapters.engine_python.builtins._support import (
    LIST_CELL_WORDS,
    WORD_BYTES,
    Machine,
    bare_ctx,
    check_cells,
    ctx,
    list_or_partial,
)
from zpm_adapters.engine_python.builtins.format_directives import (
    atomic_arg,
    code_arg,
    column_number,
    decimal_arg,
    float_arg,
    format_error,
    radix_arg,
    string_arg,
)
from zpm_adapters.engine_python.builtins.terms import term_variables
from zpm_adapters.engine_python.builtins.text import make_atom, make_string, optional_text
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    deref,
    det,
    existence_error,
    instantiation_error,
    type_error,
)
from zpm_domain.errors import MemoryLimitExceeded, ResourceLimitExceeded
from zpm_domain.prolog.terms import NIL, Atom, Struct

_SINKS = {("atom", 1), ("string", 1), ("codes", 1), ("codes", 2), ("chars", 1), ("chars", 2)}


class _Output:
    """The text produced so far, with the pending column segment."""

    def __init__(self, m: Machine) -> None:
        self.m = m
        self.text: list[str] = []
        self.size = 0
        self.segment_start = 0  # index in ``text`` where the segment begins
        self.stop_column = 0  # column of the last column stop
        self.fills: list[tuple[int, str]] = []  # (index in text, fill char)

    def emit(self, s: str) -> None:
        if s:
            self.text.append(s)
            self.size += len(s)
            check_cells(self.m, self.size // 8)
            if "\n" in s:
                self.segment_start = len(self.text)
                self.stop_column = 0
                self.fills = []

    def column(self) -> int:
        col = 0
        for piece in reversed(self.text):
            nl = piece.rfind("\n")
            if nl >= 0:
                return col + len(piece) - nl - 1
            col += len(piece)
        return col

    def fill(self, char: str) -> None:
        self.fills.append((len(self.text), char))

    def column_stop(self, target: int) -> None:
        current = self.column()
        pad = target - current
        if pad > 0:
            fills = self.fills or [(len(self.text), " ")]
            n = len(fills)
            sizes = [pad // n] * n
            for k in range(pad - (pad // n) * n):
                sizes[(n // 2 + k) % n] += 1
            for (index, char), size in reversed(list(zip(fills, sizes, strict=True))):
                self.text.insert(index, char * size)
            self.size += pad
            check_cells(self.m, self.size // 8)
        self.stop_column = max(target, current)
        self.segment_start = len(self.text)
        self.fills = []

    def result(self) -> str:
        return "".join(self.text)


def _format_args(m: Machine, t: RTerm) -> list[RTerm]:
    items, tail = list_or_partial(m, t)
    if tail is NIL:
        return items
    return [t]


_TAKES_ARGUMENT = frozenset("acdDefgipqrRsw")
_PLAIN = frozenset("~nt|+")
_MAX_DIGITS = 18
_BEYOND: int = 10**_MAX_DIGITS


def numeric_arguments(fmt: str, args: list[RTerm]) -> int:
    """The sum of the numeric arguments of ``fmt``'s directives (``~N``, and
    ``~*`` taking the next argument of ``args``): the characters a format
    may write beyond its arguments' own text (``~Nc`` repeats, ``~N|``
    columns, ``~Ne`` digits ...), counted against the solve's memory budget
    before anything is written, as zpm_format.pl counts them on SWI-Prolog.
    The scan ends at a directive it does not know or when ``args`` run out;
    an argument that is not a positive integer counts nothing (the format
    itself raises its error)."""
    total, k, i, n = 0, 0, 0, len(fmt)
    while (i := fmt.find("~", i)) >= 0 and i + 1 < n:
        i += 1
        if fmt[i] == "*":
            if k >= len(args):
                break
            value = deref(args[k])
            k += 1
            if type(value) is int and value > 0:
                total += int(value)
            i += 1
        elif fmt[i] == "`":
            i += 2
        else:
            j = i
            while j < n and "0" <= fmt[j] <= "9":
                j += 1
            if j - i > _MAX_DIGITS:
                return _BEYOND
            if j > i:
                total += int(fmt[i:j])
                i = j
        if i < n and fmt[i] == ":":
            i += 1
        if i >= n:
            break
        d = fmt[i]
        i += 1
        if d in _TAKES_ARGUMENT:
            k += 1
        elif d not in _PLAIN:
            break
    return total


def run_format(m: Machine, fmt: str, args_term: RTerm) -> str:
    """The text of ``format(Fmt, Args)`` (``args_term`` is ``Args``).

    An unbound variable prints as ``_G<n>``: the variables of ``Args``
    numbered from 1 in the order ``term_variables/2`` lists them (the same
    text on every engine, whatever the engine calls its variables).
    """
    out = _Output(m)
    names = {
        ref.id: f"_G{n}"  # type: ignore[union-attr]
        for n, ref in enumerate(term_variables(m, args_term), start=1)
    }
    items = _format_args(m, args_term)
    m.charge_text(numeric_arguments(fmt, items))
    pending = list(reversed(items))

    def next_arg() -> RTerm:
        if not pending:
            raise format_error("not enough arguments")
        return pending.pop()

    i, n = 0, len(fmt)
    while i < n:
        c = fmt[i]
        if c != "~":
            j = fmt.find("~", i)
            j = n if j < 0 else j
            out.emit(fmt[i:j])
            i = j
            continue
        i += 1
        column: int | None = None
        fill_char = " "
        if i < n and fmt[i] == "*":
            column = column_number(m, next_arg())
            i += 1
        elif i < n and fmt[i] == "`":
            fill_char = fmt[i + 1] if i + 1 < n else " "
            column = ord(fill_char)
            i += 2
        else:
            j = i
            while j < n and fmt[j].isdigit():
                j += 1
            if j > i:
                column = int(fmt[i:j])
                fill_char = chr(column) if column <= 0x10FFFF else " "
                i = j
        if i < n and fmt[i] == ":":
            i += 1
        d = fmt[i] if i < n else "\0"
        i += 1
        _directive(m, out, d, column, fill_char, next_arg, names)
    if pending:
        raise format_error("too many arguments")
    return out.result()


def _directive(
    m: Machine,
    out: _Output,
    d: str,
    column: int | None,
    fill_char: str,
    next_arg: Any,
    names: dict[int, str],
) -> None:
    if d in "wpq":
        options = {
            "max_cells": m.limits.max_memory_bytes // WORD_BYTES,
            "tick": m.check_limits,
            "variable_names": names,
        }
        writer = {"w": swi_write.write, "p": swi_write.print_text, "q": swi_write.writeq}[d]
        try:
            out.emit(writer(next_arg(), **options))
        except ResourceLimitExceeded:  # the text would not fit in the memory budget
            raise MemoryLimitExceeded(m.limits) from None
    elif d == "a":
        out.emit(atomic_arg(next_arg()))
    elif d in "dD":
        out.emit(decimal_arg(m, d, column, next_arg()))
    elif d == "s":
        out.emit(string_arg(m, next_arg()))
    elif d in "efg":
        out.emit(float_arg(m, d, column, next_arg()))
    elif d == "n":
        out.emit("\n" * (1 if column is None else column))
    elif d == "c":
        out.emit(code_arg(column, next_arg()))
    elif d in "rR":
        out.emit(radix_arg(m, d, column, next_arg()))
    elif d == "~":
        out.emit("~")
    elif d == "i":
        next_arg()
    elif d == "t":
        out.fill(fill_char)
    elif d == "|":
        out.column_stop(out.column() if column is None else column)
    elif d == "+":
        out.column_stop(out.stop_column + (8 if column is None else column))
    else:
        raise existence_error("format_character", Atom(d), bare_ctx("format", 2))


def _sink(t: RTerm) -> Struct:
    t = deref(t)
    if type(t) is Ref:
        raise instantiation_error(ctx("format", 3))
    if type(t) is Struct and (t.name, len(t.args)) in _SINKS:
        return t
    if type(t) is Atom:
        raise existence_error("stream", t, ctx("format", 3))
    raise type_error("output", t, ctx("format", 3))


@det("format", 3)
def format3(m: Machine, args: tuple[RTerm, ...]) -> bool:
    sink = _sink(args[0])
    fmt_t = deref(args[1])
    if type(fmt_t) is Ref:
        raise instantiation_error(bare_ctx("format", 3))
    fmt = None if type(fmt_t) in (int, float) else optional_text(m, fmt_t)
    if fmt is None:
        raise type_error("text", fmt_t, bare_ctx("format", 3))
    text = run_format(m, fmt, args[2])
    kind = sink.name
    if kind == "atom":
        return m.unify(sink.args[0], make_atom(m, text))
    if kind == "string":
        return m.unify(sink.args[0], make_string(m, text))
    tail: RTerm = sink.args[1] if len(sink.args) == 2 else NIL
    items: list[RTerm] = [ord(ch) for ch in text] if kind == "codes" else [Atom(ch) for ch in text]
    check_cells(m, LIST_CELL_WORDS * len(items))
    result = tail
    for item in reversed(items):
        result = Struct("[|]", (item, result))
    return m.unify(sink.args[0], result)
