"""A run report's data made by hand (two publications, parts, a publisher host, requests per host), for the tests of
the report page and its plots without a database or a run."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from pubfetch.model.part_type import PartName, PartType
from pubfetch.net.counts import HostCounts
from pubfetch.output.report_data import NotFinal, PartCoverage, PublisherRow, ReportData


def report_data(**changes: object) -> ReportData:
    data = ReportData(
        source="pubs.db", generated=datetime(2026, 1, 2, 3, 4, tzinfo=UTC), publications=2, final=1,
        parts=[PartCoverage(PartName.title, 2, 0, 0, {PartType.europepmc: 2}),
               PartCoverage(PartName.fulltext, 1, 0, 1, {PartType.doi: 1})],
        publishers=[PublisherRow("journals.example.org", 2, 1, 0, 1)],
        not_final=[NotFinal("31111111, 10.1000/X", "A title", (PartName.fulltext,), False)], not_final_total=1,
        requests={"www.ebi.ac.uk": HostCounts(requests=5, failed=1, too_many=1)})
    return dataclasses.replace(data, **changes)  # type: ignore[arg-type]
