"""Text-mined terms (pubfetch/resources/mined.py) called directly, over the in-process services: asked only when the
search says there are some, by PMCID before PMID, many articles per request, each publication at most once per ID."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from pubfetch.model.part_type import PartName, PartType
from pubfetch.resources import europepmc, mined
from pubfetch.resources.pubstate import PubFlag
from support.fetchrun import fetch_run
from support.synthetic import Article


def searched(run, indexes):
    states = [run.pub_state(Article(i).pmid) for i in indexes]
    with run.context() as ctx:
        europepmc.fetch_search(ctx, states)
    run.transport.sent.clear()
    return states


def asked_ids(run) -> list[list[str]]:
    return [parse_qs(urlsplit(r.url).query)["articleIds"][0].split(",") for r in run.transport.sent]


def test_one_request_for_every_type_for_a_batch_by_pmcid_and_only_where_the_search_announced_terms() -> None:
    run = fetch_run(4)
    states = searched(run, range(4))
    with run.context() as ctx:
        mined.fetch_mined(ctx, states, PartName.efo)
        mined.fetch_mined(ctx, states, PartName.go)  # from the same answer: no request
    # the closed-access ones (1, 3) have no text-mined terms, says the search: not asked
    assert asked_ids(run) == [[f"PMC:{Article(0).pmcid}", f"PMC:{Article(2).pmcid}"]]
    assert "type" not in parse_qs(urlsplit(run.transport.sent[0].url).query)
    oa = states[0].pub
    assert [(t.term, t.count) for t in oa.efo.items] == [("sequencing", 1)]
    assert [(t.term, t.count) for t in oa.go.items] == [("signal transduction", 2), ("cell", 1)]  # most often first
    assert oa.efo.type is PartType.europepmc and "articleIds=PMC%3A" in oa.efo.url
    assert states[1].pub.efo.is_empty() and not states[1].has(PubFlag.EFO_PMCID)


def test_the_pmid_is_asked_when_the_pmcid_gave_nothing_and_then_nothing_more() -> None:
    run = fetch_run(2)
    [only] = searched(run, [0])
    run.services.failing.add("annotations")
    with run.context() as ctx:
        mined.fetch_mined(ctx, [only], PartName.efo)  # by PMCID: the service is busy
        run.services.failing.clear()
        assert mined.wants_mined(ctx, only, PartName.efo)
        mined.fetch_mined(ctx, [only], PartName.efo)  # by PMID
        assert not mined.wants_mined(ctx, only, PartName.efo)
        mined.fetch_mined(ctx, [only], PartName.efo)
    assert asked_ids(run) == [[f"PMC:{Article(0).pmcid}"], [f"MED:{Article(0).pmid}"]]
    assert only.again_flags == {PubFlag.EFO_PMCID}  # the busy request is the one the retry asks again
    assert [t.term for t in only.pub.efo.items] == ["sequencing"]


def test_an_answer_for_go_brings_the_efo_terms_whose_own_requests_failed() -> None:
    """Both EFO passes (by PMCID, then by PMID) meet a busy service; the GO pass's answer holds every type, so the
    EFO terms come from it, as the EFO request would have given them, instead of a final entry without them."""
    run = fetch_run(2)
    [only] = searched(run, [0])
    with run.context() as ctx:
        run.services.failing.add("annotations")
        mined.fetch_mined(ctx, [only], PartName.efo)
        mined.fetch_mined(ctx, [only], PartName.efo)
        assert only.pub.efo.is_empty() and only.pub.state.fetch_exception
        run.services.failing.clear()
        mined.fetch_mined(ctx, [only], PartName.go)
        assert not mined.wants_mined(ctx, only, PartName.efo)  # answered: the retry does not ask for it again
    assert asked_ids(run) == [[f"PMC:{Article(0).pmcid}"], [f"MED:{Article(0).pmid}"], [f"PMC:{Article(0).pmcid}"]]
    assert [t.term for t in only.pub.efo.items] == ["sequencing"]
    assert [t.term for t in only.pub.go.items] == ["signal transduction", "cell"]
    assert only.pub.efo.type is PartType.europepmc and "articleIds=PMC%3A" in only.pub.efo.url


def test_the_efo_pass_takes_the_go_terms_the_go_pass_would_take_from_its_answer() -> None:
    """Whichever pass takes them, a healthy fetch's GO part holds the terms of the one answer the EFO pass received,
    with that answer's type and URL, after one request."""
    run = fetch_run(2)
    [only] = searched(run, [0])
    with run.context() as ctx:
        mined.fetch_mined(ctx, [only], PartName.efo)
        mined.fetch_mined(ctx, [only], PartName.go)
    assert len(run.transport.sent) == 1
    go = only.pub.go
    assert [t.term for t in go.items] == ["signal transduction", "cell"]
    assert go.type is PartType.europepmc and go.url == only.pub.efo.url


def test_requests_are_split_at_the_annotations_batch_size() -> None:
    run = fetch_run(6, annotations_batch=2)
    states = searched(run, range(6))  # open access: 0, 2, 4
    with run.context() as ctx:
        mined.fetch_mined(ctx, states, PartName.go)
    assert [len(ids) for ids in asked_ids(run)] == [2, 1]
    assert all(states[i].pub.go.items for i in (0, 2, 4))


def test_the_other_types_asked_for_come_from_the_same_requests_as_efo_and_go() -> None:
    run = fetch_run(4, annotations=["Gene_Proteins", "Diseases", "Experimental Methods", "Gene Ontology"])
    states = searched(run, range(4))
    with run.context() as ctx:
        for part in (PartName.efo, PartName.efo, PartName.go, PartName.go):  # the chain's four passes
            mined.fetch_mined(ctx, states, part)
    assert len(run.transport.sent) == 1  # as many as for EFO and GO alone: one per batch of article IDs
    oa = states[0].pub
    assert [(t.type, t.term, t.count) for t in oa.mined_terms.items] == [
        ("Gene_Proteins", "BRCA2", 1), ("Diseases", "breast cancer", 1)]  # Organisms were not asked for
    assert oa.mined_terms.type is PartType.europepmc and [t.term for t in oa.go.items] == ["signal transduction", "cell"]
    assert oa.to_json(computed=False)["minedTerms"]["list"][0] == {
        "type": "Gene_Proteins", "term": "BRCA2", "count": 1, "uri": "https://www.uniprot.org/uniprot/P51587"}
    assert states[1].pub.mined_terms.is_empty()


def test_without_efo_and_go_only_the_types_asked_for_are_kept() -> None:
    run = fetch_run(2, annotations=["Organisms"])
    states = searched(run, range(2))
    with run.context() as ctx:
        for part in (PartName.efo, PartName.efo, PartName.go, PartName.go):
            mined.fetch_mined(ctx, states, part)
    assert len(run.transport.sent) == 1
    oa = states[0].pub
    assert [t.term for t in oa.mined_terms.items] == ["human"]
    assert oa.efo.is_empty() and oa.go.is_empty()
