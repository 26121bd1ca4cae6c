"""Pages that stand in for an article (pubfetch/extract/blockpage.py): a challenge's own markup or title is enough,
generic signs count only on a short page without bibliographic tags, so a real article that embeds a captcha in its
comment form or names a bot check in its cookie banner is still read. (Recorded gates are in test_pubmed_pages.py.)"""

from __future__ import annotations

import pytest

from pubfetch.extract.blockpage import SHORT_PAGE, block_reason

ARTICLE_TEXT = "<p>" + "The results of the study are described here in some detail. " * 80 + "</p>"


def page(head: str = "", body: str = "") -> str:
    return f"<html><head>{head}</head><body>{body}</body></html>"


@pytest.mark.parametrize(("html", "reason"), [
    (page("<title>Just a moment...</title>"), "Cloudflare browser check"),
    (page("<title>Attention Required! | Cloudflare</title>"), "Cloudflare browser check"),
    (page("", "<div id='challenge-running'></div>" + ARTICLE_TEXT), "Cloudflare browser check"),
    (page("", "<div class='cookie-required-message'>Cookies must be enabled</div>"),
     "PubMed bot check (cookies and a proof-of-work script required)"),
    (page("<title>Are you a robot?</title>"), "bot check"),
    (page("", "<div class='g-recaptcha'></div>"), "captcha"),
    (page("", "<p>Our systems have detected unusual traffic from your network.</p>"), "unusual-traffic block"),
    (page("<title>Error</title>", "<h1>Access Denied</h1>"), "access denied"),
])
def test_block_pages_are_named(html: str, reason: str) -> None:
    assert block_reason(html) == reason


def test_a_challenge_wins_even_on_a_page_with_citation_tags() -> None:
    html = page('<meta name="citation_title" content="A"><title>Just a moment...</title>')
    assert block_reason(html) == "Cloudflare browser check"


def test_generic_signs_do_not_count_on_an_article_page() -> None:
    with_tags = page('<meta name="citation_title" content="A study">', "<div class='g-recaptcha'></div>")
    assert block_reason(with_tags) is None
    long_page = page("<title>A study</title>", ARTICLE_TEXT + "<form action='/captcha'><p>Access denied</p></form>")
    assert len(ARTICLE_TEXT) > SHORT_PAGE
    assert block_reason(long_page) is None


def test_words_in_scripts_are_not_visible_text_and_an_ordinary_page_is_no_block() -> None:
    assert block_reason(page("", "<script>var captcha = 'access denied';</script><p>Hello</p>")) is None
    assert block_reason(page("<title>A study</title>", "<p>Short abstract.</p>")) is None
    assert block_reason(b"<html><body><p>bytes are read too: unusual traffic</p></body></html>") == (
        "unusual-traffic block")
