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


def test_a_task_s_result_lists_its_papers_with_their_own_counts() -> None:
    from pubfetch.distributed.counts import decode_summary, papers_of
    from pubfetch.distributed.jobretry import EachCounted
    from support.summaries import ARGS, final_publication

    batch = EachCounted()
    batch.count(final_publication("1", failed_request=False), ARGS, fetched=True)
    batch.count(final_publication("2", failed_request=True), ARGS, fetched=False)
    encoded = encode_summary(batch)
    papers = papers_of(encoded)
    assert papers is not None and [ids for ids, _ in papers] == [["1"], ["2"]]
    first, second = (decode_summary(counts) for _, counts in papers)
    assert (first.total, first.fetched, first.final, first.fetch_exception) == (1, 1, 1, 0)
    assert (second.total, second.skipped, second.final, second.fetch_exception) == (1, 1, 1, 1)
    job = BatchSummary()
    add_summary(job, encoded)  # the job's whole counts, as before: the list is no count
    assert (job.total, job.fetched, job.skipped) == (2, 1, 1)
    assert papers_of(encode_summary(BatchSummary(total=2))) is None  # a result that does not list them
