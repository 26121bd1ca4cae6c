"""The values the run report is made of: a publisher's full-text success share, and records that stay as gathered."""

from __future__ import annotations

import dataclasses

import pytest

from pubfetch.model.part_type import PartName
from pubfetch.output.report_data import NotFinal, PublisherRow
from support.reports import report_data


def test_success_is_the_share_of_publications_with_their_full_text_from_the_host() -> None:
    assert PublisherRow("a.example", 4, 3, 1, 0).success == 0.75
    assert PublisherRow("a.example", 0, 0, 0, 0).success == 0.0


def test_gathered_rows_cannot_be_changed_afterwards() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        PublisherRow("a.example", 1, 1, 0, 0).host = "b.example"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        NotFinal("1", "T", (PartName.title,), False).title = "U"  # type: ignore[misc]


def test_a_report_not_about_a_run_has_no_requests_or_summary_and_a_default_title() -> None:
    data = report_data(requests=None)
    assert (data.requests, data.summary, data.title) == (None, None, "pubfetch report")
