"""Validation of journal lines."""

from __future__ import annotations

import pytest

from zpm_adapters.persistence.wal_format import BadRecord, decode_line, encode_batch
from zpm_adapters.persistence.wal_scan import scan
from zpm_domain.ports.journal import JournalCorrupt, JournalOp


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"[1]", "not a JSON object"),
        (b'{"ops":[]}', "'ts' must be an integer"),
        (b'{"ts":true,"ops":[]}', "'ts' must be an integer"),
        (b'{"ts":1.5,"ops":[]}', "'ts' must be an integer"),
        (b'{"ts":1}', "missing 'ops'"),
        (b'{"ts":1,"ops":{}}', "'ops' must be a list"),
        (b'{"ts":1,"ops":["assert"]}', "op 0 is not a JSON object"),
        (b'{"ts":1,"ops":[{"op":["assert"],"clause":"a"}]}', "'op' must be a non-empty string"),
        (b'{"ts":1,"op":{},"clause":"a"}', "'op' must be a non-empty string"),
        (b'{"ts":1,"ops":[{"op":"","clause":"a"}]}', "'op' must be a non-empty string"),
        (b'{"ts":1,"ops":[{"clause":"a"}]}', "'op' must be a non-empty string"),
        (b'{"ts":1,"ops":[]', "invalid JSON"),
        (b"\xff\xfe", "invalid UTF-8"),
        (b"", "invalid JSON"),
        (b"[" * 100_000, "invalid JSON"),
    ],
)
def test_invalid_lines_say_why(line: bytes, reason: str) -> None:
    with pytest.raises(BadRecord, match=reason.replace("(", r"\(")):
        decode_line(line, 1)


def test_extra_top_level_keys_are_ignored_and_op_keys_are_arguments() -> None:
    record = decode_line(b'{"ts":1,"v":2,"ops":[{"op":"assert","clause":"a","x":0}]}', 7)
    assert record.ops == (JournalOp("assert", clause="a", x=0),) and record.line == 7


def test_any_operation_name_and_json_arguments_round_trip() -> None:
    op = JournalOp("base", snapshot="s1", id="f00", count=3, flags=[True, None], more={"a": 1.5})
    assert decode_line(encode_batch([op], 9)[:-1], 1).ops == (op,)
    assert decode_line(b'{"ts":1,"ops":[{"op":"drop"}]}', 1).ops == (JournalOp("drop"),)


def test_a_single_operation_line_of_older_journals_is_a_batch_of_one() -> None:
    record = decode_line(b'{"ts":5,"op":"retract","clause":"p(a)"}', 3)
    assert record.ops == (JournalOp("retract", clause="p(a)"),) and record.ts == 5


@pytest.mark.parametrize("bad", [JournalOp("", clause="a"), JournalOp("x", {"op": "y"})])
def test_an_operation_the_format_cannot_hold_is_refused(bad: JournalOp) -> None:
    with pytest.raises(ValueError, match="not a journal operation"):
        encode_batch([bad], 1)


def test_encode_is_compact_and_decodes_back() -> None:
    ops = [JournalOp("assert", clause="p(X) :- q(X)"), JournalOp("retractall", clause="r(_)")]
    line = encode_batch(ops, 42)
    assert line == (
        b'{"ts":42,"ops":[{"op":"assert","clause":"p(X) :- q(X)"},'
        b'{"op":"retractall","clause":"r(_)"}]}\n'
    )
    assert decode_line(line[:-1], 1).ops == tuple(ops)


def test_scan_reports_torn_tail_and_line_numbers_from_the_offset() -> None:
    good = encode_batch([JournalOp("assert", clause="a")], 1)
    result = scan(good + good + b'{"ts"', path="j.wal", offset=100, lines=4)
    assert [r.line for r in result.records] == [5, 6]
    assert result.end == 100 + 2 * len(good) and result.lines == 6
    assert result.torn is not None and (result.torn.offset, result.torn.line) == (result.end, 7)


def test_scan_an_invalid_line_followed_by_a_fragment_is_corrupt() -> None:
    with pytest.raises(JournalCorrupt) as info:
        scan(b"nope\n{", path="j.wal", offset=0, lines=0)
    assert info.value.line == 1
