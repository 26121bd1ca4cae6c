"""The identity check in a fetch, on real pages of ../shared/corpus through the replay proxy: wrong-paper cases built
from them (a DOI resolving to another article's page, another paper's PDF, a news page about other papers, a
repository page carrying another DOI, a preprint page for a published DOI, an interstitial page carrying no identifier
and another paper's title) merge nothing, keep the DOI asked for, are recorded and counted, and are not asked again; a
page with nothing to check it by is merged unverified and settled by a later title; and no right page or PDF of the
corpus is rejected."""

from __future__ import annotations

import pytest

from pubfetch.engine.summary import BatchSummary
from pubfetch.extract.identity_claims import page_claims
from pubfetch.fetcher import fetch_many, init_publication
from pubfetch.ids import classify
from pubfetch.model.identity import Reason
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.rich import RichName
from pubfetch.resources import identity
from pubfetch.resources.base import Context
from pubfetch.resources.pubstate import PubState
from pubfetch.resources.site import fetch_pdf, fetch_site
from support.fetchrun import run_context
from support.replayrun import config_for, fetch_all

#: DOI asked (Crossref's test prefix, so that no recorded service knows it; the last one a real DOI whose title Europe
#: PMC's recorded search gives first) -> the real page of another paper its doi.org redirect leads to, why it is not
#: the paper, and the DOI the page claims.
WRONG_PAPERS = {
    "10.5555/identity.redirect": (
        "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0213978", Reason.ID,
        "10.1371/JOURNAL.PONE.0213978"),
    "10.5555/identity.pdf": ("https://peerj.com/articles/1120.pdf", Reason.ID, "10.7717/PEERJ.1120"),
    "10.5555/identity.news": ("https://www.nature.com/articles/d41586-020-02610-z", Reason.ID,
                              "10.1038/D41586-020-02610-Z"),
    "10.5555/identity.repository": ("https://hal.science/hal-04206682", Reason.ID, "10.1038/NATURE14539"),
    "10.5555/identity.published": ("https://www.biorxiv.org/content/10.1101/696633v1", Reason.PREPRINT,
                                   "10.1101/696633"),
    # an interstitial: a page carrying no identifier (IEEE's 2017 layout), another paper's title
    "10.1136/injuryprev-2014-041358": ("https://ieeexplore.ieee.org/document/7976317/authors", Reason.TITLE, ""),
}
CONTENT = (PartName.title, PartName.keywords, PartName.theAbstract, PartName.fulltext)


@pytest.fixture(scope="module")
def wrong(replay_server):
    """DOI -> the publication fetched for it, and the summary of that run."""
    replay, server = replay_server
    for doi, (url, _, _) in WRONG_PAPERS.items():
        replay.redirect(doi, url)
    cfg = config_for(server)
    summary = BatchSummary()
    with run_context(cfg) as ctx:
        pubs = list(fetch_many(list(WRONG_PAPERS), config=cfg, context=ctx, retry_exceptions=False, summary=summary))
    return {p.doi.content.lower(): p for p in pubs}, summary


@pytest.mark.parametrize("doi", list(WRONG_PAPERS))
def test_another_papers_page_or_pdf_merges_nothing_and_is_recorded(doi: str, wrong) -> None:
    pubs, _ = wrong
    url, reason, claimed = WRONG_PAPERS[doi]
    pub = pubs[doi]
    assert pub.doi.content == doi.upper()  # the DOI asked for is kept
    assert all(pub.part(name).url != url for name in PartName) and all(pub.rich(name).url != url for name in RichName)
    if doi.startswith("10.5555/"):  # no other source knows it: nothing at all
        assert all(pub.part(name).is_empty() for name in CONTENT)
        assert all(pub.rich(name).is_empty() for name in RichName)
        assert not pub.authors and not pub.journal_title and pub.pub_date == -1
    else:  # its title came from Europe PMC first
        assert pub.title.content.startswith("Did Chile's traffic law reform push police enforcement?")
    assert url not in {s.url for s in pub.visited_sites}
    assert [(s.url, s.reason, s.doi) for s in pub.rejected_sites] == [(url, reason, claimed)]
    # a rejection is not a failure (the real DOI's other services are not all recorded: some of them fail)
    assert not pub.state.fetch_exception or not doi.startswith("10.5555/")
    assert pub.to_json()["rejectedSites"][0]["reason"] == reason.value


def test_the_run_summary_counts_the_rejections(wrong) -> None:
    _, summary = wrong
    assert summary.rejected_sites == len(WRONG_PAPERS)
    assert f"{len(WRONG_PAPERS)} pages and PDFs rejected as another paper's" in summary.line()


def test_a_rejected_url_is_not_asked_again_for_the_publication(wrong, replay_server) -> None:
    replay, server = replay_server
    cfg = config_for(server)
    pubs, _ = wrong
    with run_context(cfg) as ctx:
        for doi in ("10.5555/identity.redirect", "10.5555/identity.pdf"):
            url = WRONG_PAPERS[doi][0]
            state = PubState(pubs[doi])
            asked = replay.counts["other"]
            fetch_site(ctx, state, url, PartType.doi, "https://doi.org/" + doi, meta=True, keywords=True)
            fetch_pdf(ctx, state, url, PartType.pdf_doi, "https://doi.org/" + doi)
            assert replay.counts["other"] == asked
            assert len(state.pub.rejected_sites) == 1 and state.pub.new_rejections == 1


def _site_state(ctx: Context, doi: str) -> PubState:
    return PubState(init_publication(classify(doi), ctx.config.fetching))


SPRINGER_1988 = "http://www.springerlink.com/content/p64768w654438463/"  # a 2010 layout without meta IDs
IEEE = "https://ieeexplore.ieee.org/document/7976317/authors"
IEEE_TITLE = "Block Design-Based Key Agreement for Group Data Sharing in Cloud Computing"


def test_a_page_without_ids_is_merged_unverified_and_dropped_by_another_title(replay_server) -> None:
    _, server = replay_server
    cfg = config_for(server)
    with run_context(cfg) as ctx:
        state = _site_state(ctx, "10.5555/identity.unverified")
        fetch_site(ctx, state, SPRINGER_1988, PartType.doi, "https://doi.org/10.5555/identity.unverified", meta=True,
                   keywords=True)
        pub = state.pub
        assert [s.url for s in pub.unverified_sites] == [SPRINGER_1988]
        merged = [name for name in CONTENT if pub.part(name).url == SPRINGER_1988]
        assert merged  # merged, marked unverified
        pub.set_title("Deep learning", PartType.europepmc, "https://www.ebi.ac.uk/europepmc/", ctx.args)
        identity.settle(ctx, state)
        assert not pub.unverified_sites
        assert all(pub.part(name).url != SPRINGER_1988 for name in PartName)
        assert [(s.url, s.reason) for s in pub.rejected_sites] == [(SPRINGER_1988, Reason.TITLE)]
        assert pub.title.content == "Deep learning"


def test_a_page_without_ids_is_confirmed_by_the_papers_title(replay_server) -> None:
    _, server = replay_server
    cfg = config_for(server)
    with run_context(cfg) as ctx:
        state = _site_state(ctx, "10.1109/TDSC.2017.2725953")
        fetch_site(ctx, state, IEEE, PartType.doi, "https://doi.org/10.1109/TDSC.2017.2725953", meta=True,
                   keywords=True)
        pub = state.pub
        assert [s.url for s in pub.unverified_sites] == [IEEE]
        kept = {name: pub.part(name).content for name in CONTENT if pub.part(name).url == IEEE}
        pub.set_title(IEEE_TITLE, PartType.oadoi, "https://api.unpaywall.org/v2/10.1109/TDSC.2017.2725953",
                      ctx.args)
        identity.settle(ctx, state)
        assert not pub.unverified_sites and not pub.rejected_sites
        assert kept and all(pub.part(name).content == content for name, content in kept.items())


def test_a_page_without_ids_and_another_title_than_the_known_one_is_not_merged(replay_server) -> None:
    _, server = replay_server
    cfg = config_for(server)
    with run_context(cfg) as ctx:
        state = _site_state(ctx, "10.5555/identity.titled")
        state.pub.set_title("Deep learning", PartType.europepmc, "https://www.ebi.ac.uk/europepmc/", ctx.args)
        fetch_site(ctx, state, IEEE, PartType.link_oadoi, "https://api.unpaywall.org/", meta=True, keywords=False)
        pub = state.pub
        assert pub.title.content == "Deep learning"
        assert all(pub.part(name).url != IEEE for name in PartName)
        assert [(s.url, s.reason, s.title) for s in pub.rejected_sites] == [(IEEE, Reason.TITLE, IEEE_TITLE)]


# --- no right page is rejected --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_no_page_of_the_corpus_is_rejected_for_its_own_doi(replay_server) -> None:
    """Every publisher page of the three manifests, reached through its doi.org redirect, is its DOI's paper."""
    replay, server = replay_server
    dois = [e["ids"]["doi"] for e in replay.by_resource("doi_redirect")]
    assert len(dois) >= 70
    pubs = fetch_all(server, dois, batch_size=16)  # see the sweep below
    assert len(pubs) == len(dois)
    rejected = {p.doi.content: [(s.url, s.reason.value, s.doi or s.title) for s in p.rejected_sites]
                for p in pubs if p.rejected_sites}
    assert rejected == {}
    reached = [p for p in pubs if p.visited_sites]
    assert len(reached) >= 60  # the pages were read, not skipped


@pytest.mark.slow
def test_no_page_read_at_its_url_or_pdf_of_the_corpus_is_rejected(replay_server) -> None:
    """The pages without a recorded redirect (PMC copies, whose DOIs lead to the publisher) and the recorded PDFs,
    read for their own DOI."""
    replay, server = replay_server
    cfg = config_for(server)
    redirected = {e["headers"]["Location"] for e in replay.by_resource("doi_redirect")}
    pages = [e for e in replay.by_resource("publisher_page")
             if e["url"] not in redirected and e["ids"].get("doi") and e["status"] == 200]
    pdfs = [e for e in replay.by_resource("pdf") if e["status"] == 200]
    assert pages and len(pdfs) == 3
    with run_context(cfg) as ctx:
        for entry in pages + pdfs:
            doi = entry["ids"]["doi"]
            state = _site_state(ctx, doi)
            if entry["resource"] == "pdf":
                fetch_pdf(ctx, state, entry["url"], PartType.pdf_doi, "https://doi.org/" + doi)
                assert not state.pub.fulltext.is_empty(), entry["name"]
            else:
                fetch_site(ctx, state, entry["url"], PartType.doi, "https://doi.org/" + doi, meta=True, keywords=True)
            assert not state.pub.rejected_sites, (entry["name"], state.pub.rejected_sites)


@pytest.mark.slow
def test_every_corpus_page_reached_for_another_doi_is_rejected_or_marked_unverified(replay_server) -> None:
    """Each publisher page of the three manifests as the target of another DOI's redirect: a page carrying an
    identifier (in its tags, or where its scraping rule reads one) is rejected and gives nothing; one carrying none is
    merged only as unverified."""
    replay, server = replay_server
    pages = [e for e in replay.by_resource("publisher_page") if e["status"] == 200]
    targets = {f"10.5555/sweep.{i}": e for i, e in enumerate(pages)}
    for doi, entry in targets.items():
        replay.redirect(doi, entry["url"])
    # in batches of 16: every DOI of a batch is resolved at once
    pubs = {p.doi.content.lower(): p for p in fetch_all(server, list(targets), batch_size=16)}
    outcomes = {"rejected": 0, "unverified": 0}
    for doi, entry in targets.items():
        pub = pubs[doi]
        carries_ids = page_claims(replay.body(entry), entry["url"]).has_ids
        if pub.rejected_sites:
            assert [s.url for s in pub.rejected_sites] == [entry["url"]], entry["name"]
            assert all(pub.part(name).is_empty() for name in CONTENT), entry["name"]
            outcomes["rejected"] += 1
        elif pub.unverified_sites:
            assert pub.doi.content == doi.upper()
            assert [s.url for s in pub.unverified_sites] == [entry["url"]] and not carries_ids, entry["name"]
            outcomes["unverified"] += 1
        else:  # a block page, or a page giving nothing at all
            assert all(pub.part(name).is_empty() for name in CONTENT), entry["name"]
    assert outcomes["rejected"] >= 70, outcomes


@pytest.mark.slow
def test_every_third_batch_page_matches_its_own_displayed_title_and_no_other(replay_server) -> None:
    """The title path on every page of pages3.jsonl: a publication known only by an ID the page cannot carry (a
    PMCID) and by the title a person read on the page is never rejected at the ``title_similarity`` default; known by
    the next page's title instead, every page is rejected and gives nothing."""
    replay, server = replay_server
    cfg = config_for(server)
    pages = [e for e in replay.by_resource("publisher_page")
             if e["_manifest"] == "pages3.jsonl" and e["expected"]["title"]]
    assert len(pages) == 45
    wrongly_rejected, wrongly_kept = [], []
    with run_context(cfg) as ctx:
        for i, entry in enumerate(pages):
            for title, own in ((entry["expected"]["title"], True), (pages[i - 1]["expected"]["title"], False)):
                state = _site_state(ctx, "PMC9999999")
                state.pub.set_title(title, PartType.europepmc, "https://www.ebi.ac.uk/europepmc/", ctx.args)
                fetch_site(ctx, state, entry["url"], PartType.link, "https://www.ebi.ac.uk/europepmc/", meta=True,
                           keywords=True)
                pub = state.pub
                if own and (pub.rejected_sites or not pub.visited_sites):
                    wrongly_rejected.append(entry["name"])
                if not own and ([s.reason for s in pub.rejected_sites] != [Reason.TITLE]
                                or any(pub.part(name).url == entry["url"] for name in PartName)):
                    wrongly_kept.append(entry["name"])
    assert wrongly_rejected == [] and wrongly_kept == []
