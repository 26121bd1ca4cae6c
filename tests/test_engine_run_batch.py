"""One batch of a run: IDs read (comments and bad lines passed over), loaded from the database or started new, the
publications can_fetch allows fetched, each stored and reported once as soon as it is complete, a retracted one
warned about in one line."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from pubfetch.engine.options import FetchOptions
from pubfetch.engine.run_batch import (
    BatchMark,
    Identities,
    Tally,
    Walk,
    checked,
    fetch_batch,
    init_publication,
    loaded_batches,
    to_ids,
    valid_ids,
)
from pubfetch.engine.summary import BatchSummary, FetchError
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import InvalidId, PublicationIds
from pubfetch.model.part_type import PartType
from pubfetch.store import init_db
from pubfetch.store.writer import StoreWriter
from support.fetchrun import fetch_run
from support.synthetic import Article, SyntheticServices

ARGS = FetcherArgs()


def test_ids_are_classified_and_ids_objects_pass_through() -> None:
    assert to_ids("PMC123") == PublicationIds(pmcid="PMC123")
    assert to_ids("https://doi.org/10.1000/xyz").doi == "10.1000/XYZ"  # DOIs are kept upper-case
    ids = PublicationIds("42")
    assert to_ids(ids) is ids
    with pytest.raises(InvalidId):
        to_ids("not an id")


def test_a_new_publication_holds_its_ids_as_external_parts() -> None:
    pub = init_publication(PublicationIds("42", "PMC7", "10.1/a"), ARGS)
    assert (pub.pmid.content, pub.pmcid.content, pub.doi.content) == ("42", "PMC7", "10.1/A")
    assert pub.pmid.type is PartType.external
    with pytest.raises(ValueError, match="no valid ID"):
        init_publication(PublicationIds(), ARGS)


def test_blank_lines_and_comments_are_passed_over_and_a_bad_id_skipped_or_raised(
        caplog: pytest.LogCaptureFixture) -> None:
    batch = ["42", "", "  # a comment", "nonsense", "PMC7"]
    with caplog.at_level(logging.WARNING, logger="pubfetch.engine.run_batch"):
        assert list(valid_ids(batch, "skip")) == [PublicationIds("42"), PublicationIds(pmcid="PMC7")]
    assert [r.getMessage().split(":")[0] for r in caplog.records] == ["skipping 'nonsense'"]
    with pytest.raises(InvalidId):
        list(valid_ids(batch, "raise"))


def test_batches_are_taken_a_size_at_a_time_and_read_from_the_database(tmp_path: Path) -> None:
    store = init_db(tmp_path / "p.db")
    stored = init_publication(PublicationIds("2"), ARGS)
    stored.title.content = "Stored title"
    store.put_publication(stored)
    store.commit()
    batches = list(loaded_batches(iter(["1", "2", "3", "#", "4", "5"]), 2, store, ARGS, "skip"))
    store.close()
    assert [[p.pmid.content for p in batch] for batch in batches] == [["1", "2"], ["3"], ["4", "5"]]
    assert batches[0][1].title.content == "Stored title"
    assert batches[0][0].title.content == ""


def test_the_same_paper_under_another_id_is_reported_once() -> None:
    seen = Identities()
    assert seen.add(init_publication(PublicationIds("1", doi="10.1/A"), ARGS))
    assert not seen.add(init_publication(PublicationIds(doi="10.1/a"), ARGS))
    assert seen.add(init_publication(PublicationIds("2"), ARGS))


def test_tally_counts_and_reports_each_paper_of_a_batch_once() -> None:
    summary = BatchSummary()
    progress: list[tuple[int, str]] = []
    tally = Tally(ARGS, summary, lambda done, pub: progress.append((done, pub.pmid.content)), retry_exceptions=True)
    mark = tally.next_batch()
    assert mark == BatchMark(1, mark.reported) and tally.next_batch().number == 2
    first = init_publication(PublicationIds("1", doi="10.1/a"), ARGS)
    assert tally.complete(first, True, mark)
    assert not tally.complete(init_publication(PublicationIds(doi="10.1/A"), ARGS), False, mark)
    assert tally.complete(init_publication(PublicationIds("2"), ARGS), False, mark)
    assert progress == [(1, "1"), (2, "2")]
    assert (summary.total, summary.fetched, summary.skipped) == (2, 1, 1)
    tally.retry.close()


def test_checked_raises_for_a_transient_failure_only_when_asked() -> None:
    failed = init_publication(PublicationIds("1"), ARGS)
    failed.state.failed("transient")
    fine = init_publication(PublicationIds("2"), ARGS)
    assert list(checked([failed, fine], "skip")) == [failed, fine]
    with pytest.raises(FetchError):
        list(checked([failed, fine], "raise"))


def test_a_batch_is_fetched_stored_and_reported_in_input_order(tmp_path: Path) -> None:
    run = fetch_run(3)
    args = run.config.fetching
    store = init_db(tmp_path / "p.db")
    summary = BatchSummary()
    tally = Tally(args, summary, None, retry_exceptions=True)
    batch = [init_publication(PublicationIds(Article(i).pmid), args) for i in (2, 0, 1)]
    with run.context() as ctx, StoreWriter(store) as writer:
        walk = Walk(ctx, None, writer, tally, len(batch), FetchOptions(summary=summary), own_context=False)
        reported = fetch_batch(walk, batch, tally.next_batch())
    assert reported == batch
    assert [p.title.content for p in reported] == [Article(i).title for i in (2, 0, 1)]
    again = store.get_publication(PublicationIds(Article(0).pmid))
    assert again is not None and again.title.content == Article(0).title
    assert summary.fetched == 3
    store.close()
    tally.retry.close()


def test_a_publication_can_fetch_refuses_is_reported_without_a_request() -> None:
    run = fetch_run(1)
    args = run.config.fetching
    done = init_publication(PublicationIds("99"), args)
    done.state.fetch_time = int(time.time() * 1000)  # fetched just now ...
    done.state.retry_counter = args.retry_limit  # ... and out of retries
    done.title.content = "x"
    summary = BatchSummary()
    tally = Tally(args, summary, None, retry_exceptions=True)
    with run.context() as ctx:
        walk = Walk(ctx, None, None, tally, 1, FetchOptions(summary=summary), own_context=False)
        assert fetch_batch(walk, [done], tally.next_batch()) == [done]
    assert run.transport.sent == []
    assert summary.skipped == 1
    tally.retry.close()



class _OneRetracted(SyntheticServices):
    """Europe PMC's search says the second (closed-access) paper was retracted, as it writes it: the publication type
    and a "Retraction in" correction naming the notice."""

    def search_record(self, a: Article) -> dict:
        record = super().search_record(a)
        if a.index == 1:
            record["pubTypeList"] = {"pubType": ["Journal Article", "Retracted Publication"]}
            record["commentCorrectionList"] = {"commentCorrection": [
                {"id": "99000001", "source": "MED", "type": "Retraction in", "reference": "J Synth Biol. 2021."}]}
        return record


def test_a_retracted_paper_fetched_gives_one_warning_line(caplog: pytest.LogCaptureFixture) -> None:
    services = _OneRetracted(2)
    with caplog.at_level(logging.WARNING, logger="pubfetch"):
        fine, retracted = fetch_run(services).fetch(services.pmids())
    assert retracted.retracted and not fine.retracted
    warnings = [r.getMessage() for r in caplog.records if "retracted" in r.getMessage()]
    assert warnings == [f"{retracted.pmid.content}, {retracted.doi.content} is a retracted publication "
                        "(retraction notice 99000001)"]
    assert "\n" not in warnings[0]


def test_a_retracted_paper_retried_at_the_end_of_the_run_is_warned_about_once(
        caplog: pytest.LogCaptureFixture) -> None:
    services = _OneRetracted(2)
    services.failing.add("doi")  # the DOI page fails: a fetchException, retried at the end of the run
    with caplog.at_level(logging.WARNING, logger="pubfetch"):
        _fine, retracted = fetch_run(services).fetch(services.pmids())
    assert retracted.retracted and retracted.state.fetch_exception
    assert services.counts["doi"] >= 2  # fetched twice: in its batch and in the retry
    assert len([r for r in caplog.records if "is a retracted publication" in r.getMessage()]) == 1
