"""The journal's line format: one compact JSON object per batch.

A line is ``{"ts":<unix seconds>,"ops":[{"op":"assert","clause":"..."}]}``
followed by ``\\n``: each operation is an object with its name under
``"op"`` and its arguments as the other keys.  JSON escapes every newline
inside texts, so a batch is always exactly one line.

The format knows no operation names: any name and any JSON arguments round
trip, and the domain decides what they mean.  ``decode_line`` also accepts
the single-operation lines of older journals (``{"ts":..,"op":..,"clause":..}``)
as a batch of one operation.  Unknown top-level keys are ignored so that
later versions may add fields.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from zpm_domain.ports.journal import JournalOp, JournalRecord

_decode_json = json.JSONDecoder().decode


class BadRecord(ValueError):
    """A line that is not a valid batch; ``str()`` says why."""


def encode_batch(ops: Sequence[JournalOp], ts: int) -> bytes:
    """The newline-terminated UTF-8 line for one batch.

    Raises ``ValueError`` for an empty operation name or an argument named
    ``op``.  Text that cannot be encoded as UTF-8 (lone surrogates) is
    written with JSON ``\\u`` escapes instead, so every ``str`` round-trips.
    """
    items = []
    for op in ops:
        if not op.op or "op" in op.args:
            raise ValueError(f"not a journal operation: {op!r}")
        items.append({"op": op.op, **op.args})
    obj = {"ts": ts, "ops": items}
    try:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(obj, separators=(",", ":")).encode("ascii") + b"\n"


def decode_line(raw: bytes, line: int) -> JournalRecord:
    """Parse one line (without its ``\\n``); ``BadRecord`` when invalid."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRecord(f"invalid UTF-8 at byte {exc.start}") from None
    try:
        obj: Any = _decode_json(text)
    except json.JSONDecodeError as exc:
        raise BadRecord(f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise BadRecord("invalid JSON: nested too deeply") from None
    if not isinstance(obj, dict):
        raise BadRecord("not a JSON object")
    ts = obj.get("ts")
    if not isinstance(ts, int) or isinstance(ts, bool):
        raise BadRecord("'ts' must be an integer")
    if "ops" in obj:
        raw_ops = obj["ops"]
        if not isinstance(raw_ops, list):
            raise BadRecord("'ops' must be a list")
    elif "op" in obj:
        raw_ops = [{k: v for k, v in obj.items() if k != "ts"}]
    else:
        raise BadRecord("missing 'ops'")
    ops = []
    for index, item in enumerate(raw_ops):
        if not isinstance(item, dict):
            raise BadRecord(f"op {index} is not a JSON object")
        kind = item.pop("op", None)
        if not isinstance(kind, str) or not kind:
            raise BadRecord(f"op {index}: 'op' must be a non-empty string")
        ops.append(JournalOp(kind, item))
    return JournalRecord(ops=tuple(ops), ts=ts, line=line)
