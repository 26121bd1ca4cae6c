"""A batch in flight: each publication through the chain on its own thread, reported as soon as it is complete, and a
paper given twice fetched once, as the publication given first."""

from __future__ import annotations

from pubfetch.engine.batches import init_publication
from pubfetch.engine.flow import InFlight, fetch_publications
from pubfetch.ids import PublicationIds
from pubfetch.resources.pubrun import PubRun
from support.fetchrun import fetch_run
from support.synthetic import Article


def test_each_publication_is_fetched_and_reported_once_complete() -> None:
    run = fetch_run(3)
    pubs = [init_publication(PublicationIds(Article(i).pmid), run.config.fetching) for i in range(3)]
    completed: list[PubRun] = []
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
    completed: list[PubRun] = []
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
