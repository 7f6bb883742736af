"""Compact JSON text for tool results (architecture §7).

Tool results embed JSON without spaces (``{"a":1,"b":[2]}``).  Floats use
the writer's float syntax so that a number reads the same in a binding and
in rendered terms; non-finite floats are not JSON numbers and become strings.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

JsonValue = Any


def dumps(value: JsonValue) -> str:
    """Serialize ``value`` (dict, list, str, int, float, bool, None) compactly."""
    parts: list[str] = []
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            parts.append(item.text)
        elif isinstance(item, str):
            parts.append(json.dumps(item, ensure_ascii=False))
        elif item is None:
            parts.append("null")
        elif isinstance(item, bool):
            parts.append("true" if item else "false")
        elif isinstance(item, int):
            parts.append(int_text(item))
        elif isinstance(item, float):
            parts.append(_float(item))
        elif isinstance(item, Mapping):
            pending: list[object] = [_Raw("{")]
            for i, (key, val) in enumerate(item.items()):
                if i:
                    pending.append(_Raw(","))
                pending.append(_Raw(json.dumps(str(key), ensure_ascii=False) + ":"))
                pending.append(val)
            pending.append(_Raw("}"))
            stack.extend(reversed(pending))
        elif isinstance(item, Sequence):
            pending = [_Raw("[")]
            for i, val in enumerate(item):
                if i:
                    pending.append(_Raw(","))
                pending.append(val)
            pending.append(_Raw("]"))
            stack.extend(reversed(pending))
        else:
            raise TypeError(f"not JSON serializable: {type(item).__name__}")
    return "".join(parts)


class _Raw:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def int_text(n: int) -> str:
    from zpm_domain.prolog.writer import int_text as text

    return text(n)


def _float(x: float) -> str:
    from zpm_domain.prolog.writer import format_float

    text = format_float(x)
    if math.isfinite(x):
        return text
    return json.dumps(text)
