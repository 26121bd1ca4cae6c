"""A batch in flight: each publication through the chain on its own thread, reported as soon as it is complete, and a
paper given twice fetched once, as the publication given first."""

from __future__ import annotations

import json

from pubfetch.engine.flow import InFlight, fetch_publications
from pubfetch.engine.run_batch import init_publication
from pubfetch.ids import PublicationIds
from pubfetch.model.identity import Reason
from pubfetch.model.publication import Publication
from pubfetch.resources.pubstate import PubState
from support.fetchrun import fetch_run
from support.loopback import Reply
from support.synthetic import Article, SyntheticServices


def test_each_publication_is_fetched_and_reported_once_complete() -> None:
    run = fetch_run(3)
    pubs = [init_publication(PublicationIds(Article(i).pmid), run.config.fetching) for i in range(3)]
    completed: list[PubState] = []
    with run.context() as ctx:
        holders = fetch_publications(ctx, pubs, completed.append)
    assert holders == pubs
    assert [p.title.content for p in pubs] == [Article(i).title for i in range(3)]
    assert sorted(r.pub.pmid.content for r in completed) == [Article(i).pmid for i in range(3)]
    assert all(done.pub in pubs for done in completed)


def test_a_paper_given_by_pmid_and_by_doi_is_fetched_once_as_the_first() -> None:
    run = fetch_run(2)
    args = run.config.fetching
    by_pmid = init_publication(PublicationIds(Article(1).pmid), args)
    by_doi = init_publication(PublicationIds(doi=Article(1).doi), args)
    completed: list[PubState] = []
    with run.context() as ctx:
        holders = fetch_publications(ctx, [by_pmid, by_doi], completed.append)
    assert holders[0] is holders[1]
    assert holders[0].doi.content.lower() == Article(1).doi
    assert len(completed) == 1 and completed[0].pub is holders[0]
    assert run.services.ids_asked["efetch_pubmed"][Article(1).pmid] == 1


def test_batches_sharing_their_claims_fetch_a_repeated_paper_once() -> None:
    run = fetch_run(2)
    args = run.config.fetching
    with run.context() as ctx:
        shared = InFlight(ctx)
        [first] = fetch_publications(ctx, [init_publication(PublicationIds(Article(0).pmid), args)], shared=shared,
                                     batch=1)
        [second] = fetch_publications(ctx, [init_publication(PublicationIds(doi=Article(0).doi), args)],
                                      shared=shared, batch=2)
    assert second is first
    assert first.title.content == Article(0).title


def test_an_empty_batch_asks_nothing() -> None:
    run = fetch_run(1)
    with run.context() as ctx:
        assert fetch_publications(ctx, []) == []
    assert run.transport.sent == []


def test_a_batchs_claims_last_until_every_batch_begun_before_it_ended_has_ended() -> None:
    """Batch 2 was read from the database while batch 1 was in flight, so it did not find batch 1's papers there: batch
    1's claims hold until batch 2 is done too; batch 3, begun after batch 1 ended, finds them stored."""
    run = fetch_run(1)
    args = run.config.fetching

    def claimed_again(shared: InFlight, number: int) -> bool:
        again = PubState(init_publication(PublicationIds(Article(0).pmid), args))
        shared.claims.claim([again], number, shared.scope(number))
        return again.same_as is not None

    with run.context() as ctx:
        shared = InFlight(ctx)
        first, second = shared.begin(), shared.begin()
        shared.claims.claim([PubState(init_publication(PublicationIds(Article(0).pmid), args))], first)
        shared.end(first)
        assert claimed_again(shared, second)  # batch 2 still running: batch 1's claim holds
        third = shared.begin()
        shared.end(second)
        assert (first, second, third) == (1, 2, 3)
        assert not claimed_again(shared, third)  # batch 1 forgotten: the paper is stored by now
        shared.end(third)


def test_claims_are_taken_within_a_scope_only() -> None:
    """Two jobs' batches in flight together: a paper of both is each job's to fetch and count."""
    run = fetch_run(1)
    args = run.config.fetching
    with run.context() as ctx:
        shared = InFlight(ctx, alone=False)
        one, other, same = shared.begin("job-a"), shared.begin("job-b"), shared.begin("job-a")
        states = [PubState(init_publication(PublicationIds(Article(0).pmid), args)) for _ in range(3)]
        for r, number in zip(states, (one, other, same), strict=True):
            shared.claims.claim([r], number, shared.scope(number))
    assert [r.same_as for r in states] == [None, None, states[0].pub]


def _unverified_page_then_unpaywall(unpaywall_title: str) -> Publication:
    """A DOI no service knows, whose page carries no identifier (so it is merged unverified), and whose Unpaywall
    record then gives a title."""
    services = SyntheticServices(1)
    doi = "10.5555/SETTLE.1"
    page = ("<html><head><title>Tidal rhythms in estuarine fish | Journal</title></head><body><h1>Tidal rhythms in "
            "estuarine fish</h1><div class='abstract'><h2>Abstract</h2><p>" + "Fish keep time with the tides. " * 12
            + "</p></div></body></html>")
    record = {"doi": doi.lower(), "title": unpaywall_title, "is_oa": False, "oa_locations": [], "journal_name": "J"}
    services.extra[f"/doi/{doi}"] = Reply(302, "", "text/plain", {"Location": f"{services.base}/article/settle"})
    services.extra["/article/settle"] = Reply(200, page)
    services.extra[f"/unpaywall/{doi}"] = Reply(200, json.dumps(record), "application/json")
    [pub] = fetch_run(services).fetch([doi])
    return pub


def test_an_unverified_page_is_dropped_at_the_end_when_a_later_source_gives_another_title() -> None:
    pub = _unverified_page_then_unpaywall("Deep learning")
    assert not pub.unverified_sites and [s.reason for s in pub.rejected_sites] == [Reason.TITLE]
    page = pub.rejected_sites[0].url
    assert page.endswith("/article/settle")
    assert page not in [s.url for s in pub.visited_sites]  # a rejected page's visit goes with its parts
    assert pub.abstract.is_empty() and pub.title.content == "Deep learning"


def test_an_unverified_page_is_confirmed_at_the_end_by_a_later_sources_title() -> None:
    pub = _unverified_page_then_unpaywall("Tidal rhythms in estuarine fish.")
    assert not pub.unverified_sites and not pub.rejected_sites
    assert "Fish keep time with the tides." in pub.abstract.content
