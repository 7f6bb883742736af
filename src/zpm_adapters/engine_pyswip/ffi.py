"""The few SWI-Prolog C functions the pyswip binding calls, and value conversion.

pyswip loads ``libswipl`` and starts Prolog; this module opens the same
library again (``dlopen`` hands back the loaded one) with prototypes of its
own, so pyswip's function objects are left as they are.  pyswip's own
conversions return strings as ``bytes``, compounds as text and cannot carry
integers beyond 64 bits; here values are read and written term by term:

* Python -> Prolog: ``str`` -> atom (UTF-8, any character including NUL),
  ``int`` -> integer (beyond 64 bits through its decimal text), ``float``
  -> float (inf and nan through their SWI-Prolog text), ``list`` -> list.
* Prolog -> Python: atom and string -> ``str``, integer -> ``int`` (any
  size), float -> ``float``, proper list -> ``list``; any other term ->
  its ``writeq`` text.

Both directions walk lists with explicit stacks.  A long list (``LONG_LIST``
items or more, at any depth) goes to Prolog as one JSON text that SWI-Prolog's
reader reads as data (``term_string/3`` with ``double_quotes(atom)``: JSON's
strings, escapes and numbers are Prolog's), the same term the item-by-item
way builds with two C calls per item; a list JSON cannot carry exactly (a
float that is not finite, an integer too long for Python's ``str``) goes
item by item.  All functions here must run on the thread
that owns the Prolog engine, inside an open foreign frame.
"""

from __future__ import annotations

import ctypes
import json
import math
from ctypes import POINTER, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint, c_void_p
from typing import Any

from zpm_domain.prolog.reader.numbers import parse_int
from zpm_domain.prolog.writer import int_text

term_t = c_size_t

PL_VARIABLE, PL_ATOM, PL_INTEGER, PL_RATIONAL, PL_FLOAT, PL_STRING = 1, 2, 3, 4, 5, 6
PL_TERM, PL_NIL, PL_BLOB, PL_LIST_PAIR = 7, 8, 9, 10
CVT_ATOM, CVT_STRING, CVT_INTEGER, CVT_WRITEQ = 0x1, 0x2, 0x8, 0x200
BUF_DISCARDABLE, REP_UTF8 = 0x0, 0x100000
PL_Q_NODEBUG, PL_Q_CATCH_EXCEPTION = 0x4, 0x8

QUERY = PL_Q_NODEBUG | PL_Q_CATCH_EXCEPTION

LONG_LIST = 16
"""Lists of at least this many items go to Prolog as one text (see the module doc)."""

_PROTOTYPES: dict[str, tuple[Any, list[Any]]] = {
    "PL_open_foreign_frame": (c_size_t, []),
    "PL_discard_foreign_frame": (None, [c_size_t]),
    "PL_new_term_ref": (term_t, []),
    "PL_new_term_refs": (term_t, [c_size_t]),
    "PL_copy_term_ref": (term_t, [term_t]),
    "PL_predicate": (c_void_p, [c_char_p, c_int, c_char_p]),
    "PL_call_predicate": (c_int, [c_void_p, c_int, c_void_p, term_t]),
    "PL_exception": (term_t, [c_size_t]),
    "PL_clear_exception": (None, []),
    "PL_mark_string_buffers": (None, [POINTER(c_size_t)]),
    "PL_release_string_buffers_from_mark": (None, [c_size_t]),
    "PL_put_nil": (c_int, [term_t]),
    "PL_cons_list": (c_int, [term_t, term_t, term_t]),
    "PL_put_int64": (c_int, [term_t, c_int64]),
    "PL_put_float": (c_int, [term_t, c_double]),
    "PL_put_chars": (c_int, [term_t, c_int, c_size_t, c_char_p]),
    "PL_put_term": (c_int, [term_t, term_t]),
    "PL_chars_to_term": (c_int, [c_char_p, term_t]),
    "PL_term_type": (c_int, [term_t]),
    "PL_get_nchars": (c_int, [term_t, POINTER(c_size_t), POINTER(c_char_p), c_uint]),
    "PL_get_int64": (c_int, [term_t, POINTER(c_int64)]),
    "PL_get_float": (c_int, [term_t, POINTER(c_double)]),
    "PL_get_list": (c_int, [term_t, term_t, term_t]),
    "PL_get_nil": (c_int, [term_t]),
}


class Ffi:
    """Prototyped entry points of one loaded ``libswipl``."""

    def __init__(self, libswipl: str) -> None:
        lib = ctypes.CDLL(libswipl, mode=ctypes.RTLD_GLOBAL)
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)
        self._read_data = self.PL_predicate(b"term_string", 3, b"system")

    def open_frame(self) -> tuple[int, int]:
        """Open a foreign frame and mark the string buffers; see :meth:`close_frame`."""
        mark = c_size_t()
        self.PL_mark_string_buffers(ctypes.byref(mark))
        return self.PL_open_foreign_frame(), mark.value

    def close_frame(self, frame: tuple[int, int]) -> None:
        """Discard the terms and the converted texts made since :meth:`open_frame`."""
        self.PL_discard_foreign_frame(frame[0])
        self.PL_release_string_buffers_from_mark(frame[1])

    def __getattr__(self, name: str) -> Any:  # the prototyped functions, for mypy
        raise AttributeError(name)

    # -- Python -> Prolog -------------------------------------------------
    def put(self, ref: int, value: Any) -> None:
        """Put ``value`` (str, int, float or nested lists of them) into ``ref``."""
        if not isinstance(value, list):
            self._put_scalar(ref, value)
            return
        if len(value) >= LONG_LIST and self._put_text(ref, value):
            return
        # Each frame: the items, the next index to take (counting down), the
        # list built so far (a term ref), and where the finished list goes.
        stack: list[tuple[list[Any], list[int], int, int]] = []
        self._check(self.PL_put_nil(ref))
        stack.append((value, [len(value) - 1], ref, -1))
        head = self.PL_new_term_ref()
        while stack:
            items, index, acc, target = stack[-1]
            i = index[0]
            if i < 0:
                stack.pop()
                if target >= 0:
                    self._check(self.PL_cons_list(target, acc, target))
                    stack[-1][1][0] -= 1
                continue
            item = items[i]
            if isinstance(item, list):
                if len(item) >= LONG_LIST and self._put_text(head, item):
                    self._check(self.PL_cons_list(acc, head, acc))
                    index[0] = i - 1
                    continue
                inner = self.PL_new_term_ref()
                self._check(self.PL_put_nil(inner))
                stack.append((item, [len(item) - 1], inner, acc))
                continue
            self._put_scalar(head, item)
            self._check(self.PL_cons_list(acc, head, acc))
            index[0] = i - 1

    def _put_text(self, ref: int, items: list[Any]) -> bool:
        """Put the list ``items`` into ``ref`` as one JSON text read by
        Prolog; ``False`` (``ref`` untouched) when JSON cannot carry it
        exactly."""
        try:
            data = json.dumps(items, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError, UnicodeEncodeError):
            return False
        args = self.PL_new_term_refs(3)
        self._check(self.PL_put_chars(args + 1, PL_STRING | REP_UTF8, len(data), data))
        self._check(self.PL_chars_to_term(b"[double_quotes(atom)]", args + 2))
        if not self.PL_call_predicate(None, QUERY, self._read_data, args):
            self.PL_clear_exception()
            return False
        self._check(self.PL_put_term(ref, args))
        return True

    def _put_scalar(self, ref: int, value: Any) -> None:
        if isinstance(value, str):
            data = value.encode("utf-8")
            self._check(self.PL_put_chars(ref, PL_ATOM | REP_UTF8, len(data), data))
        elif isinstance(value, bool):
            raise TypeError("bool is not a Prolog value")
        elif isinstance(value, int):
            if -(2**63) <= value < 2**63:
                self._check(self.PL_put_int64(ref, value))
            else:
                self._check(self.PL_chars_to_term(int_text(value).encode("ascii"), ref))
        elif isinstance(value, float):
            if math.isfinite(value):
                self._check(self.PL_put_float(ref, value))
            else:
                text = "1.5NaN" if math.isnan(value) else ("1.0Inf" if value > 0 else "-1.0Inf")
                self._check(self.PL_chars_to_term(text.encode("ascii"), ref))
        else:
            raise TypeError(f"cannot hand {type(value).__name__} to Prolog")

    @staticmethod
    def _check(ok: int) -> None:
        if not ok:
            raise RuntimeError("SWI-Prolog could not build an input term")

    # -- Prolog -> Python -------------------------------------------------
    def get(self, ref: int) -> Any:
        """The Python value of the term in ``ref`` (see the module docstring)."""
        if self.PL_term_type(ref) != PL_LIST_PAIR:
            return self._get_scalar(ref)
        out: list[Any] = []
        stack: list[tuple[int, list[Any]]] = [(self.PL_copy_term_ref(ref), out)]
        head = self.PL_new_term_ref()
        while stack:
            tail, items = stack[-1]
            if not self.PL_get_list(tail, head, tail):
                stack.pop()
                if not self.PL_get_nil(tail):
                    raise ValueError("partial list in a Prolog answer")
                continue
            if self.PL_term_type(head) == PL_LIST_PAIR:
                inner: list[Any] = []
                items.append(inner)
                stack.append((self.PL_copy_term_ref(head), inner))
            else:
                items.append(self._get_scalar(head))
        return out

    def _get_scalar(self, ref: int) -> Any:
        kind = self.PL_term_type(ref)
        if kind == PL_NIL:
            return []
        if kind in (PL_ATOM, PL_STRING):
            return self._text(ref, CVT_ATOM | CVT_STRING)
        if kind == PL_INTEGER:
            small = c_int64()
            if self.PL_get_int64(ref, ctypes.byref(small)):
                return small.value
            return _int_of(self._text(ref, CVT_INTEGER))
        if kind == PL_FLOAT:
            number = c_double()
            self._check(self.PL_get_float(ref, ctypes.byref(number)))
            return number.value
        return self._text(ref, CVT_WRITEQ)

    def _text(self, ref: int, flags: int) -> str:
        size = c_size_t()
        chars = c_char_p()
        if not self.PL_get_nchars(
            ref, ctypes.byref(size), ctypes.byref(chars), flags | BUF_DISCARDABLE | REP_UTF8
        ):
            raise ValueError("SWI-Prolog could not give the text of a term")
        return ctypes.string_at(chars, size.value).decode("utf-8")


def _int_of(text: str) -> int:
    """The integer SWI-Prolog wrote as ``text``, of any size (CPython's
    ``int()`` refuses more than 4300 digits by default)."""
    if text.startswith("-"):
        return -parse_int(text[1:], 10)
    return parse_int(text, 10)
