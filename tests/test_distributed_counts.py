"""A batch's counts as JSON (a task's result) and added up into a job's summary."""

from __future__ import annotations

from pubfetch.distributed.counts import add_summary, encode_summary
from pubfetch.engine.summary import BatchSummary


def test_a_summary_travels_as_json_and_adds_up() -> None:
    one = BatchSummary(total=2, fetched=2, final=1, not_final=1, retry_limited=1, eligible_at=500,
                       eligible_options={"--emptyCooldown"})
    other = BatchSummary(total=1, skipped=1, final=1, eligible_at=300, eligible_options={"--nonFinalCooldown"})
    one.requests = object()  # live counters stay behind
    encoded = encode_summary(one)
    assert "requests" not in encoded and encoded["eligible_options"] == ["--emptyCooldown"]
    job = BatchSummary()
    add_summary(job, encoded)
    add_summary(job, encode_summary(other))
    assert (job.total, job.fetched, job.skipped, job.final, job.not_final) == (3, 2, 1, 2, 1)
    assert job.eligible_at == 500  # the latest
    assert job.eligible_options == {"--emptyCooldown", "--nonFinalCooldown"}
    add_summary(job, {"total": 1, "unknown": 5})
    assert job.total == 4
