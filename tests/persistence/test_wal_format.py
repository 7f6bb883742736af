"""Validation of journal lines."""

from __future__ import annotations

import zlib

import pytest

from zpm_adapters.files.wal_scan import scan
from zpm_adapters.wal_format import (
    BadRecord,
    Batch,
    Decoded,
    decode,
    decode_line,
    encode_batch,
)
from zpm_domain.ports.journal import Author, JournalCorrupt, JournalOp, JournalRecord


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
        (b'{"ts":1,"ops":[],"by":"alice"}', "'by' must be an object"),
        (b'{"ts":1,"ops":[],"by":{"tool":1}}', "'by' must name its tool and client"),
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


def test_encode_is_compact_numbered_and_checksummed_and_decodes_back() -> None:
    ops = [JournalOp("assert", clause="p(X) :- q(X)"), JournalOp("retractall", clause="r(_)")]
    line = encode_batch(ops, 42, 7)
    body = (
        b'{"ts":42,"ops":[{"op":"assert","clause":"p(X) :- q(X)"},'
        b'{"op":"retractall","clause":"r(_)"}],"seq":7'
    )
    assert line == body + b',"crc":"%08x"}\n' % zlib.crc32(body)
    assert decode(line[:-1], 1) == Decoded(JournalRecord(tuple(ops), 42, 1), 7, single=False)
    assert Batch(ops, 42).line(7) == line


def test_a_changed_byte_anywhere_in_a_line_is_a_checksum_mismatch() -> None:
    line = encode_batch([JournalOp("assert", clause="human(socrates)")], 1764457000, 3)[:-1]
    for changed in (
        line.replace(b"socrates", b"socratez"),
        line.replace(b'"seq":3', b'"seq":4'),
        line.replace(b"1764457000", b"1764457001"),
    ):
        with pytest.raises(BadRecord, match="checksum mismatch") as info:
            decode_line(changed, 1)
        assert info.value.problem == "checksum"
    moved = line.replace(b',"seq":3', b"").replace(b'"ops"', b'"seq":3,"ops"')
    with pytest.raises(BadRecord, match="checksum mismatch"):
        decode_line(moved, 1)
    for malformed in (line[:-3] + b'X"}', line + b" ", line.replace(b',"crc"', b',"crc":1,"c"')):
        with pytest.raises(BadRecord) as info:
            decode_line(malformed, 1)
        assert info.value.problem in ("checksum", "unreadable")


def test_lines_without_number_or_checksum_are_read_unchecked() -> None:
    assert decode(b'{"ts":1,"ops":[{"op":"a"}],"seq":2}', 1).seq == 2
    assert decode(b'{"ts":1,"ops":[{"op":"a"}]}', 1) == Decoded(
        JournalRecord((JournalOp("a"),), 1, 1), None, single=False
    )
    assert decode(b'{"ts":1,"op":"a","clause":"x"}', 1).single
    with pytest.raises(BadRecord, match="'seq' must be a positive integer"):
        decode(b'{"ts":1,"ops":[],"seq":0}', 1)


def test_scan_reports_torn_tail_and_line_numbers_from_the_offset() -> None:
    good = encode_batch([JournalOp("assert", clause="a")], 1)
    result = scan(good[:-1] + b"\n", path="j.wal", offset=100, lines=4, seq=0)
    assert result.seq == 1
    more = encode_batch([JournalOp("assert", clause="a")], 1, 2)
    result = scan(good + more + b'{"ts"', path="j.wal", offset=100, lines=4)
    assert [r.line for r in result.records] == [5, 6]
    assert result.end == 100 + len(good) + len(more) and result.lines == 6 and result.seq == 2
    assert result.torn is not None and (result.torn.offset, result.torn.line) == (result.end, 7)


def test_scan_a_batch_numbered_out_of_order_is_corrupt_or_a_torn_tail() -> None:
    one, two = (encode_batch([JournalOp("assert", clause="a")], 1, n) for n in (1, 2))
    with pytest.raises(JournalCorrupt, match="out of order: batch number 1 after 2") as info:
        scan(one + two + one + two, path="j.wal", offset=0, lines=0)
    assert info.value.line == 3
    with pytest.raises(JournalCorrupt, match="out of order: batch number 1 after 1"):
        scan(one + one + two, path="j.wal", offset=0, lines=0)
    with pytest.raises(JournalCorrupt, match="out of order: batch number 2 after 2"):
        scan(two + one, path="j.wal", offset=10, lines=4, seq=2)
    with pytest.raises(JournalCorrupt, match="out of order") as info:
        scan(one + two + two, path="j.wal", offset=0, lines=0)  # no crash leaves that
    assert info.value.line == 3
    unnumbered = b'{"ts":1,"ops":[{"op":"assert","clause":"a"}]}\n'
    assert len(scan(one + unnumbered + two, path="j.wal", offset=0, lines=0).records) == 3
    gap = encode_batch([JournalOp("assert", clause="a")], 1, 9)
    assert scan(one + gap, path="j.wal", offset=0, lines=0).seq == 9


def test_scan_an_invalid_line_followed_by_a_fragment_is_corrupt() -> None:
    with pytest.raises(JournalCorrupt) as info:
        scan(b"nope\n{", path="j.wal", offset=0, lines=0)
    assert info.value.line == 1


def test_scan_a_last_line_that_reads_but_was_changed_is_corrupt_not_torn() -> None:
    one, two = (encode_batch([JournalOp("assert", clause="a")], 1, n) for n in (1, 2))
    changed = two.replace(b'"a"', b'"b"')
    with pytest.raises(JournalCorrupt, match="checksum mismatch") as info:
        scan(one + changed, path="j.wal", offset=0, lines=0)
    assert info.value.line == 2
    torn = scan(one + two[:-20] + b"\n", path="j.wal", offset=0, lines=0).torn
    assert torn is not None and torn.line == 2 and "invalid JSON" in torn.reason


def test_who_made_a_batch_round_trips_and_is_left_out_when_unknown() -> None:
    ops = [JournalOp("retract", clause="p(1)")]
    line = encode_batch(ops, 7, 3, Author("forget_fact", "alice"))
    assert b'"by":{"tool":"forget_fact","client":"alice"}' in line
    assert decode_line(line[:-1], 3).by == Author("forget_fact", "alice")
    assert decode_line(encode_batch(ops, 7, 3, Author("merge_fork", None))[:-1], 3).by == (
        Author("merge_fork", None)
    )
    plain = encode_batch(ops, 7, 3)
    assert b'"by"' not in plain and decode_line(plain[:-1], 3).by is None
