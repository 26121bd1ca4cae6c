"""The PubMed web page parser on recorded pages of both layouts, and block pages on any host: the recorded PubMed bot
gate and Cloudflare challenge, and hand-made pages of the other kinds, never read as articles."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pubfetch.config import Endpoints, FetchConfig
from pubfetch.extract.blockpage import block_reason
from pubfetch.extract.errors import ParseError
from pubfetch.extract.pubmed_html import parse_pubmed_html
from pubfetch.fetcher import fetch_many
from pubfetch.model.parts import MeshTerm
from support.fetchrun import run_context
from support.loopback import LoopbackServer, Reply
from support.synthetic import SCHOLARLY_OFF

LEGACY = "files/pubmed_page/pubmed-legacy-22188593.html"
CURRENT = "files/pubmed_page/pubmed-28003037.html"
GATE = "files/pubmed_page/pubmed-bot-gate-pow-2026.html"
CHALLENGE = "files/pdf/pnas.2307803120.challenge-page.pdf"


def test_legacy_layout(corpus_dir: Path) -> None:
    r = parse_pubmed_html((corpus_dir / LEGACY).read_bytes())
    assert (r.pmid, r.pmcid, r.doi) == ("22188593", "", "10.2165/11597620-000000000-00000")
    assert r.title.startswith("Antihypertensive efficacy of the losartan/hydrochlorothiazide combination")
    assert r.abstract.startswith("BACKGROUND AND OBJECTIVES: Although strict blood pressure (BP) control")
    assert r.abstract.count("\n\n") == 3
    assert "\n\nCONCLUSION: Antihypertensive treatment using two types of drugs" in r.abstract
    assert r.mesh[:3] == [MeshTerm("Adult"), MeshTerm("Aged"), MeshTerm("Angiotensin II Type 1 Receptor Blockers")]
    assert len(r.mesh) == 13
    assert r.journal_title == "Clinical drug investigation"
    assert (r.volume, r.issue, r.pages, r.pub_date) == ("32", "3", "171-8", "2012-03-01")
    assert [(a.family, a.given) for a in r.authors][:2] == [("Meno", "H"), ("Inou", "T")]  # "Meno H": family first


def test_current_layout(corpus_dir: Path) -> None:
    r = parse_pubmed_html((corpus_dir / CURRENT).read_bytes())
    assert (r.pmid, r.doi) == ("28003037", "10.1017/S1368980016003177")
    assert r.title == "Med Diet 4.0: the Mediterranean diet with four sustainable benefits"
    assert r.abstract.startswith("Objective: To characterize the multiple dimensions and benefits")
    assert r.keywords == ["Food security and nutrition", "Mediterranean diet", "Public health nutrition",
                          "Sustainability", "Sustainable diets", "Sustainable food systems"]
    assert len(r.mesh) == 12
    assert r.journal_title == "Public health nutrition"
    assert (r.volume, r.issue, r.pages) == ("20", "7", "1322-1330")


def test_bot_gate_is_a_block_and_no_article(corpus_dir: Path) -> None:
    html = (corpus_dir / GATE).read_bytes()
    assert block_reason(html) == "PubMed bot check (cookies and a proof-of-work script required)"
    with pytest.raises(ParseError):
        parse_pubmed_html(html)


def test_recorded_cloudflare_challenge_is_a_block(corpus_dir: Path) -> None:
    assert block_reason((corpus_dir / CHALLENGE).read_bytes()) == "Cloudflare browser check"


@pytest.mark.parametrize(("html", "reason"), [
    ("<html><head><title>Just a moment...</title></head><body><p>Checking</p></body></html>",
     "Cloudflare browser check"),
    ("<html><head><title>Attention Required! | Cloudflare</title></head><body></body></html>",
     "Cloudflare browser check"),
    ('<html><body><div id="challenge-form"></div></body></html>', "Cloudflare browser check"),
    ("<html><head><title>ScienceDirect</title></head><body><h1>There was a problem providing the content you "
     "requested</h1><p>Reference number: 8b1f</p></body></html>", "ScienceDirect refusal"),
    ("<html><head><title>Validate</title></head><body><form><div class='g-recaptcha'></div></form></body></html>",
     "captcha"),
    ("<html><head><title>Sorry</title></head><body><p>Our systems have detected unusual traffic from your "
     "computer network.</p></body></html>", "unusual-traffic block"),
    ("<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1><p>You don't have permission to "
     "access this page on this server.</p></body></html>", "access denied"),
])
def test_block_pages_on_any_host(html: str, reason: str) -> None:
    assert block_reason(html) == reason


def test_article_pages_with_a_captcha_or_a_bot_mention_are_not_blocks() -> None:
    article = ('<html><head><meta name="citation_title" content="A"></head><body><h1>A</h1>'
               '<form class="comments"><div class="g-recaptcha"></div></form></body></html>')
    long_page = "<html><body>" + "<p>Text of the article.</p>" * 300 + "<p>captcha</p></body></html>"
    assert block_reason(article) is None
    assert block_reason(long_page) is None


def test_pubmed_resource_reports_the_gate_and_takes_nothing(corpus_dir: Path, caplog) -> None:
    gate = (corpus_dir / GATE).read_bytes()

    def pubmed(req):
        return Reply(203, gate, "text/html; charset=utf-8")

    with LoopbackServer({"/pubmed/*": pubmed}) as server:
        none = server.url("/none/")
        cfg = FetchConfig().with_changes(**SCHOLARLY_OFF, endpoints=Endpoints(europepmc=none, europepmc_annotations=none, eutils=none,
                                              pubmed=server.url("/pubmed/"), doi=none, unpaywall=none),
                          allow_private_addresses=True, javascript=False)
        with caplog.at_level(logging.WARNING), run_context(cfg) as ctx:
            [pub] = list(fetch_many(["22188593"], config=cfg, context=ctx, retry_exceptions=False))
    assert (pub.title.content, pub.abstract.content) == ("", "")
    assert pub.state.fetch_exception
    assert any("PubMed bot check" in r.getMessage() and "/pubmed/22188593/" in r.getMessage()
               for r in caplog.records)
