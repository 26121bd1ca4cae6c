"""Publisher pages and PDFs (pubfetch/resources/site.py) called directly, over the in-process transport: a DOI
resolved without following the redirect, what a page gives (its text, its meta tags, the links it names), a body
that turns out to be a PDF read as one, and a bot gate taken for a failure instead of for the article."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pubfetch.model.part_type import PartType
from pubfetch.net.mapping_transport import Canned
from pubfetch.resources import site
from pubfetch.resources.pubstate import PubFlag
from support import hostile_pages
from support.fetchrun import fetch_run
from support.pdfs import make_pdf
from support.synthetic import Article

CLOSED = Article(1)  # closed access: the publisher's page is where its full text would be
#: CLOSED's PDF: its title in the info dictionary, its DOI on its page
PDF = make_pdf([f"{CLOSED.title}. doi:{CLOSED.doi}"], info={"Title": CLOSED.title.encode()})
#: another paper's PDF (10.5555/joe.2020.17)
OTHER_PDF = (Path(__file__).parent / "data" / "archival_units" / "tiny_article.pdf").read_bytes()


def publisher(run, body: bytes | str, content_type: str = "text/html; charset=utf-8") -> str:
    """Make the DOI of CLOSED redirect to a publisher page answering ``body``; returns the page's URL."""
    page = run.services.base + "/publisher/1"
    run.transport.answers[run.services.base + "/doi/" + CLOSED.doi.upper()] = Canned(
        302, "", "text/plain", {"Location": page})
    run.transport.answers[page] = Canned(200, body, content_type)
    return page


def article_page(run) -> str:
    return (f"<html><head><title>{CLOSED.title} | Publisher</title>"
            f'<meta name="citation_title" content="{CLOSED.title}">'
            f'<meta name="citation_pdf_url" content="{run.services.base}/publisher/1.pdf"></head>'
            f"<body><article><h1>{CLOSED.title}</h1>" + "<p>The article as the publisher shows it.</p>" * 30
            + "</article></body></html>")


def test_the_doi_page_gives_title_text_meta_tags_and_the_pdf_link(caplog: pytest.LogCaptureFixture) -> None:
    """The page has no scraping rule: the generic reader reads it, an expected event that is no warning."""
    caplog.set_level(logging.INFO, logger="pubfetch")
    run = fetch_run(2)
    page = publisher(run, article_page(run))
    state = run.pub_state(CLOSED.doi)
    with run.context() as ctx:
        site.fetch_doi(ctx, state)
        site.fetch_doi(ctx, state)  # the DOI is resolved once per fetch
    assert [r.url for r in run.transport.sent] == [run.services.base + "/doi/" + CLOSED.doi.upper(), page]
    assert run.transport.sent[0].follow is False  # resolved without following: the page is fetched as the site
    pub = state.pub
    assert pub.title.content == CLOSED.title and pub.title.type is PartType.citation
    assert "as the publisher shows it" in pub.fulltext.content
    assert [(s.url, s.type) for s in pub.visited_sites] == [(page, PartType.doi)]
    assert [(link.url, link.type) for link in state.links] == [(page + ".pdf", PartType.pdf_citation)]
    assert state.has(PubFlag.DOI)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert any(page in r.getMessage() for r in caplog.records if r.levelno == logging.INFO)


def test_a_doi_that_does_not_redirect_fetches_no_page_and_is_no_failure() -> None:
    run = fetch_run(2)  # the synthetic resolver answers 404
    state = run.pub_state(CLOSED.doi)
    with run.context() as ctx:
        site.fetch_doi(ctx, state)
    assert len(run.transport.sent) == 1
    assert not state.pub.state.fetch_exception and not state.pub.visited_sites


def test_a_page_that_is_a_pdf_is_read_as_one() -> None:
    run = fetch_run(2)
    page = publisher(run, PDF, "application/pdf")
    state = run.pub_state(CLOSED.doi)
    with run.context() as ctx:
        site.fetch_doi(ctx, state)
    pub = state.pub
    assert pub.fulltext.type is PartType.pdf_doi and CLOSED.title in pub.fulltext.content
    assert [(s.url, s.type) for s in pub.visited_sites] == [(page, PartType.pdf_doi)]


def test_another_papers_pdf_gives_nothing_and_is_recorded() -> None:
    run = fetch_run(2)
    page = publisher(run, OTHER_PDF, "application/pdf")
    state = run.pub_state(CLOSED.doi)
    with run.context() as ctx:
        site.fetch_doi(ctx, state)
    pub = state.pub
    assert pub.fulltext.is_empty() and pub.title.is_empty() and not pub.visited_sites
    assert [(s.url, s.type, s.doi, s.title) for s in pub.rejected_sites] == [
        (page, PartType.pdf_doi, "10.5555/JOE.2020.17", "A Tiny Test Article")]


def test_a_bot_gate_instead_of_the_page_gives_nothing_and_is_retried_later() -> None:
    run = fetch_run(2)
    publisher(run, "<html><head><title>Just a moment...</title></head><body><div id='challenge-running'>"
                   "Checking your browser</div></body></html>")
    state = run.pub_state(CLOSED.doi)
    with run.context() as ctx:
        site.fetch_doi(ctx, state)
    pub = state.pub
    assert pub.title.is_empty() and pub.fulltext.is_empty() and not pub.visited_sites
    assert pub.state.fetch_exception


def test_a_pdf_link_gives_the_full_text_and_a_busy_one_is_queued_again() -> None:
    run = fetch_run(2)
    good, busy = run.services.base + "/files/a.pdf", run.services.base + "/files/b.pdf"
    run.transport.answers[good] = Canned(200, PDF, "application/pdf")
    run.transport.answers[busy] = Canned(503, "busy", "text/plain")
    fetched, waiting = run.pub_state(CLOSED.doi), run.pub_state(Article(0).doi)
    with run.context() as ctx:
        site.fetch_pdf(ctx, fetched, good, PartType.pdf_link, "https://example.org/from")
        site.fetch_pdf(ctx, waiting, busy, PartType.pdf_link, "https://example.org/from")
    assert fetched.pub.fulltext.type is PartType.pdf_link and fetched.pub.title.content == CLOSED.title
    assert waiting.pub.state.fetch_exception
    assert [link.url for link in waiting.again_links] == [busy]


def test_a_pdf_link_that_gives_a_web_page_gives_nothing() -> None:
    run = fetch_run(2)
    url = run.services.base + "/files/not-a.pdf"
    run.transport.answers[url] = Canned(200, "<html><body>Sign in to read</body></html>")
    state = run.pub_state(CLOSED.doi)
    with run.context() as ctx:
        site.fetch_pdf(ctx, state, url, PartType.pdf_link, "https://example.org/from")
    assert state.pub.fulltext.is_empty() and not state.pub.state.fetch_exception


def test_a_pdf_that_gives_nothing_is_neither_rejected_nor_unverified() -> None:
    run = fetch_run(2)
    url = run.services.base + "/files/broken.pdf"
    run.transport.answers[url] = Canned(200, b"%PDF-1.4\n% nothing readable follows\n", "application/pdf")
    state = run.pub_state(CLOSED.doi)
    with run.context() as ctx:
        site.fetch_pdf(ctx, state, url, PartType.pdf_link, "https://example.org/from")
    pub = state.pub
    assert pub.fulltext.is_empty() and not pub.rejected_sites and not pub.unverified_sites and not pub.visited_sites


def test_a_page_over_its_time_limit_gives_nothing_counts_as_a_failure_and_the_run_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    """A page whose reading takes longer than ``page_time_limit`` is abandoned by its worker with one warning: the
    publication's entry is marked for a later fetch (which the library's words promise), and the next publication's page is read as usual."""
    other = Article(3)
    # one page at a time: read beside the hung page's parse, on a loaded machine, the other page missed the limit too;
    # and a limit that a small page's reading cannot reach even at a load average of 16 on two cores (it did at 3 s)
    run = fetch_run(4, page_time_limit=8.0, page_memory_limit=0, threads=1)
    publisher(run, hostile_pages.tag_dense(20_000_000))  # a minute of parsing
    page = run.services.base + "/publisher/3"
    run.transport.answers[run.services.base + "/doi/" + other.doi.upper()] = Canned(
        302, "", "text/plain", {"Location": page})
    run.transport.answers[page] = Canned(200, f"<html><head><meta name='citation_title' content='{other.title}'>"
                                              f"</head><body><article><h1>{other.title}</h1>"
                                              + "<p>The article as the publisher shows it.</p>" * 30
                                              + "</article></body></html>", "text/html")
    caplog.set_level(logging.WARNING, logger="pubfetch")
    hung, read = run.fetch([CLOSED.doi, other.doi])
    abandoned = [r.getMessage() for r in caplog.records if "abandoned" in r.getMessage()]
    assert abandoned == [f"page {run.services.base}/publisher/1 abandoned: not read within the page time limit of 8 s "
                         "(page_time_limit; raise it to give pages longer); nothing taken from it, a later fetch "
                         "retries it"]
    assert hung.state.fetch_exception and not hung.visited_sites
    assert hung.state.failures == {"page too slow to read": 1}  # in the words the run's advice answers
    assert "as the publisher shows it" in read.fulltext.content
    assert [s.url for s in read.visited_sites] == [page]


def test_an_elsevier_page_of_another_paper_is_not_asked_again_through_linkinghub() -> None:
    """The DOI leads to linkinghub, whose article is read on ScienceDirect: a rejection there names the linkinghub
    URL too, so the next fetch of the publication asks neither."""
    run = fetch_run(2)
    linkinghub = "https://linkinghub.elsevier.com/retrieve/pii/S0000000000000001"
    sciencedirect = "https://www.sciencedirect.com/science/article/pii/S0000000000000001"
    run.transport.answers[run.services.base + "/doi/" + CLOSED.doi.upper()] = Canned(
        302, "", "text/plain", {"Location": linkinghub})
    run.transport.answers[linkinghub] = Canned(200, "<html><body>Redirecting</body></html>")
    run.transport.answers[sciencedirect] = Canned(
        200, "<html><head><meta name='citation_doi' content='10.5555/another.paper'></head><body>"
        + "<p>Another article.</p>" * 30 + "</body></html>")
    state = run.pub_state(CLOSED.doi)
    with run.context() as ctx:
        site.fetch_doi(ctx, state)
        assert [(s.url, s.start_url) for s in state.pub.rejected_sites] == [(sciencedirect, linkinghub)]
        asked = len(run.transport.sent)
        site.fetch_site(ctx, state, linkinghub, PartType.doi, "https://doi.org/" + CLOSED.doi, meta=True,
                        keywords=True)
    assert len(run.transport.sent) == asked


def test_a_meta_titles_split_formula_gives_way_to_the_visible_heading() -> None:
    """citation_title "Ni 12 P 5 ..." (a publisher's artefact) and the heading Ni<sub>12</sub>P<sub>5</sub>: the
    stored title is the one the page shows."""
    run = fetch_run(2)
    shown = "Ni12P5 nanocrystals anchored on graphene for sodium storage"
    body = ('<html><head><title>Publisher</title><meta name="citation_title" content="Ni 12 P 5 nanocrystals '
            'anchored on graphene for sodium storage"></head><body><article><h1>Ni<sub>12</sub>P<sub>5</sub> '
            "nanocrystals anchored on graphene for sodium storage</h1>"
            + "<p>The article as the publisher shows it.</p>" * 30 + "</article></body></html>")
    publisher(run, body)
    state = run.pub_state(CLOSED.doi)
    with run.context() as ctx:
        site.fetch_doi(ctx, state)
    assert state.pub.title.content == shown


def test_a_meta_description_is_the_abstract_where_the_pages_candidate_is_a_reference_list() -> None:
    """The only block headed "Abstract" on the page holds a reference list: the correct meta description is kept."""
    run = fetch_run(2)
    description = ("Salt marshes keep pace with rising seas by trapping sediment and building organic soil. We measured "
                   "surface elevation change at forty marsh sites along three estuaries between 2015 and 2021.")
    references = "".join(f"<li>Smith J, et al. ({2000 + i}) Marshes. Coastal Journal {i}:{i}0-{i}9.</li>"
                         for i in range(8))
    body = (f'<html><head><title>{CLOSED.title}</title><meta name="citation_title" content="{CLOSED.title}">'
            f'<meta name="description" content="{description}"></head><body><article><h1>{CLOSED.title}</h1>'
            f"<h2>Abstract</h2><ol>{references}</ol></article></body></html>")
    publisher(run, body)
    state = run.pub_state(CLOSED.doi)
    with run.context() as ctx:
        site.fetch_doi(ctx, state)
    assert state.pub.abstract.content == description
