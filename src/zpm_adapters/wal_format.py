"""The journal's line format: one compact JSON object per batch.

A line is ``{"ts":<unix seconds>,"ops":[{"op":"assert","clause":"..."}],``
``"by":{"tool":"...","client":"..."},"seq":<n>,"crc":"<hex>"}`` followed by
``\\n``: each operation is an object with its name under ``"op"`` and its
arguments as the other keys; ``by`` (who made the batch: the tool of the
call and its client, either ``null``) is left out for a batch made outside
a tool call.  JSON escapes every newline inside texts, so a batch is always
exactly one line.

Two fields let a reader tell a damaged line from a whole one:

* ``seq``, the batch's number in its file: each line's is higher than that
  of the line before it that has one (the writer numbers lines 1, 2, 3...
  and goes on from the highest number it has read), so a line out of
  place (repeated, moved, from another journal) shows;
* ``crc``, the CRC-32 (8 lowercase hex digits) of the line's bytes before
  ``,"crc":``; it is always the last field, so a change to any byte of the
  line shows.

Both are optional when reading: lines without them (older journals, or a
line whose fields a person removed to edit it by hand) are read unchecked.
Unknown top-level keys are ignored, so a zpm that knows neither field
reads these lines too, and later versions may add fields.

The format knows no operation names: any name and any JSON arguments round
trip, and the domain decides what they mean.  ``decode_line`` also accepts
the single-operation lines of older journals (``{"ts":..,"op":..,"clause":..}``)
as a batch of one operation.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

from zpm_domain.ports.journal import Author, JournalOp, JournalRecord

_decode_json = json.JSONDecoder().decode

_CRC_FIELD = b',"crc":"'
_CRC_LENGTH = len(_CRC_FIELD) + 8 + 2

Problem = Literal["unreadable", "checksum", "order"]


class BadRecord(ValueError):
    """A line that is not a valid batch; ``str()`` says why.

    ``problem`` is ``"unreadable"`` when the line is no batch at all (what a
    crash in the middle of a write leaves), ``"checksum"`` when it reads but
    its bytes are not those it was written with, ``"order"`` when its batch
    number is out of order (neither is what a crash leaves).
    """

    def __init__(self, reason: str, problem: Problem = "unreadable") -> None:
        super().__init__(reason)
        self.problem: Problem = problem


class Decoded(NamedTuple):
    """A line read back: its batch, its number (``None``: the line has none),
    and whether it is in the older one-operation form (which marks no batch:
    zpm versions that wrote it wrote some tool calls as several lines)."""

    record: JournalRecord
    seq: int | None
    single: bool


class Batch:
    """One batch encoded once; :meth:`line` numbers it.

    The operations are encoded (and checksummed) when the batch is made, so
    a writer only adds the number while it holds the journal's lock.
    Raises ``ValueError`` for an empty operation name or an argument named
    ``op``.  Text that cannot be encoded as UTF-8 (lone surrogates) is
    written with JSON ``\\u`` escapes instead, so every ``str`` round-trips.
    """

    __slots__ = ("_crc", "_head")

    def __init__(self, ops: Sequence[JournalOp], ts: int, by: Author | None = None) -> None:
        items = []
        for op in ops:
            if not op.op or "op" in op.args:
                raise ValueError(f"not a journal operation: {op!r}")
            items.append({"op": op.op, **op.args})
        obj: dict[str, Any] = {"ts": ts, "ops": items}
        if by is not None:
            obj["by"] = {"tool": by.tool, "client": by.client}
        try:
            text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
            encoded = text.encode("utf-8")
        except UnicodeEncodeError:
            encoded = json.dumps(obj, separators=(",", ":")).encode("ascii")
        self._head = encoded[:-1]
        self._crc = zlib.crc32(self._head)

    def line(self, seq: int) -> bytes:
        """The newline-terminated line of this batch as number ``seq``."""
        numbered = b',"seq":%d' % seq
        crc = zlib.crc32(numbered, self._crc)
        return b'%s%s%s%08x"}\n' % (self._head, numbered, _CRC_FIELD, crc)


def encode_batch(
    ops: Sequence[JournalOp], ts: int, seq: int = 1, by: Author | None = None
) -> bytes:
    """The newline-terminated UTF-8 line for one batch made ``by``, numbered
    ``seq`` (1: the first batch of a new journal).  See :class:`Batch`."""
    return Batch(ops, ts, by).line(seq)


def decode_line(raw: bytes, line: int) -> JournalRecord:
    """Parse one line (without its ``\\n``); ``BadRecord`` when invalid."""
    return decode(raw, line).record


def decode(raw: bytes, line: int) -> Decoded:
    """Parse and check one line (without its ``\\n``); ``BadRecord`` when it
    does not read or its checksum does not match."""
    decoded, crc = parse(raw, line)
    if crc is not None:
        check_crc(raw, crc)
    return decoded


def parse(raw: bytes, line: int) -> tuple[Decoded, object]:
    """Parse one line without checking its checksum: the batch, and the
    value of its ``crc`` field (``None`` when it has none).  ``BadRecord``
    when it does not read."""
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
    seq = obj.get("seq")
    if seq is not None and not (_integer(seq) and seq > 0):
        raise BadRecord("'seq' must be a positive integer")
    single = "ops" not in obj
    if not single:
        raw_ops = obj["ops"]
        if not isinstance(raw_ops, list):
            raise BadRecord("'ops' must be a list")
    elif "op" in obj:
        raw_ops = [{k: v for k, v in obj.items() if k not in ("ts", "seq", "crc", "by")}]
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
    record = JournalRecord(ops=tuple(ops), ts=ts, line=line, by=_author(obj.get("by")))
    return Decoded(record, seq, single), obj.get("crc")


def _author(value: object) -> Author | None:
    """The ``by`` of a line (``None`` when it has none); ``BadRecord`` when
    it is not an object of a ``tool`` and a ``client``, each text or null."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadRecord("'by' must be an object")
    tool, client = value.get("tool"), value.get("client")
    if not (tool is None or isinstance(tool, str)) or not (
        client is None or isinstance(client, str)
    ):
        raise BadRecord("'by' must name its tool and client as texts or null")
    return Author(tool, client)


def check_crc(raw: bytes, crc: object) -> None:
    """``BadRecord`` (problem ``checksum``) unless the line ``raw`` ends with
    its ``crc`` field (``crc`` is that field's value) holding the checksum of
    the bytes before it."""
    if not (
        isinstance(crc, str)
        and raw[-_CRC_LENGTH:-10] == _CRC_FIELD
        and raw[-2:] == b'"}'
        and raw[-10:-2] == crc.encode("ascii", "replace")
    ):
        raise BadRecord("the checksum is not 8 hex digits in the line's last field", "checksum")
    if raw[-10:-2] != b"%08x" % zlib.crc32(memoryview(raw)[:-_CRC_LENGTH]):
        raise BadRecord("checksum mismatch: the line is not what was written", "checksum")


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
