"""One outage, one pair of log lines, however the questions to the storage
overlap: an answer to a question asked before the outage was seen does not
end it."""

from __future__ import annotations

import logging

import pytest

from zpm_app.http.outage import Outage


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage().split(":")[0] for record in caplog.records]


def test_an_answer_to_a_question_asked_before_the_outage_does_not_end_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="zpm")
    outage = Outage()
    slow = outage.asking()  # asked while the storage still answered
    outage.failed("connection refused")
    outage.answered(slow)  # its answer comes back after the failure was seen
    assert outage.down == "connection refused"
    outage.failed("connection refused")
    later = outage.asking()
    outage.answered(later)
    assert outage.down is None
    assert lines(caplog) == ["the storage does not answer", "the storage answers again"]


def test_each_outage_is_told_once_when_it_starts_and_once_when_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="zpm")
    outage = Outage()
    for _ in range(2):
        for reason in ("refused", "refused", "timed out"):
            outage.failed(reason)
        for _ in range(3):
            outage.answered(outage.asking())
    assert lines(caplog) == ["the storage does not answer", "the storage answers again"] * 2
