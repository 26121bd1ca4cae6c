"""Pages that stand in for an article without being one: bot gates, browser challenges, captchas, access refusals.

Publishers and PubMed answer automated clients with such pages, often with status 200 or 203, and their ``<title>``
and headings would otherwise be taken for the article's ("pubmed.ncbi.nlm.nih.gov", "Just a moment...", "Cookies must
be enabled"). :func:`block_reason` names the block so the caller can record a fetch failure (retried later) instead of
content. Two kinds of evidence:

* a challenge's own markup or title (PubMed's proof-of-work gate, Cloudflare's challenge, ScienceDirect's refusal):
  enough on its own, these pages never carry an article;
* generic signs (a captcha widget, "access denied", "unusual traffic"): only on a short page without bibliographic
  ``citation_*`` tags, since real article pages embed captchas in comment or login forms and cookie banners name bot
  checks (the ACM page's banner mentions Cloudflare's Turnstile).

The markers are matched on structure and visible wording, never on script bodies or tokens, which sanitised captures
empty or rewrite.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from bs4 import BeautifulSoup
from bs4.element import NavigableString

from pubfetch.extract.clean import parse_html
from pubfetch.rules.page_index import PageIndex
from pubfetch.rules.selectors import compile_selector

__all__ = ["block_reason"]

#: (name of the block, CSS selector of its markup or None, regex of its <title> or None), each enough on its own.
_CHALLENGES: tuple[tuple[str, str | None, re.Pattern[str] | None], ...] = (
    ("PubMed bot check (cookies and a proof-of-work script required)",
     "#cookie-required, .cookie-required-message", None),
    ("Cloudflare browser check", "#challenge-form, #challenge-running, #cf-challenge-running, .cf-browser-verification",
     re.compile(r"^\s*(just a moment\.*|attention required!? \| cloudflare|checking your browser.*)\s*$", re.I)),
    ("ScienceDirect refusal", None,
     re.compile(r"^\s*(sciencedirect\s*)?(there was a problem providing the content you requested)\s*$", re.I)),
    ("bot check", None, re.compile(r"^\s*(are you a robot\??|verify(ing)? you are (a )?human.*|human verification)\s*$",
                                   re.I)),
)
#: (name, CSS selector or None, regex of the visible text or None) of signs that count only on a short page.
_SIGNS: tuple[tuple[str, str | None, re.Pattern[str] | None], ...] = (
    ("captcha", ".g-recaptcha, .h-captcha, .cf-turnstile, iframe[src*=captcha], form[action*=captcha], #captcha", None),
    ("captcha", None, re.compile(r"\bcaptcha\b", re.I)),
    ("ScienceDirect refusal", None, re.compile(r"there was a problem providing the content you requested", re.I)),
    ("unusual-traffic block", None, re.compile(r"unusual traffic|automated (requests|queries|access)", re.I)),
    ("access denied", None, re.compile(r"\baccess denied\b|you don'?t have permission to access", re.I)),
    ("Cloudflare browser check", None, re.compile(r"enable javascript and cookies to continue", re.I)),
)
#: A page with more visible text than this is an article page (or a landing page) whatever else it embeds.
SHORT_PAGE = 3000
#: The parents of text that is not visible.
_INVISIBLE = frozenset(("script", "style", "noscript", "template"))


def _short_visible_text(soup: BeautifulSoup, index: PageIndex) -> str | None:
    """The page's visible text, whitespace collapsed; None as soon as it is longer than :data:`SHORT_PAGE` (an
    article page's text is not read to its end only to be measured)."""
    body = index.first("body") or soup
    words: list[str] = []
    length = -1  # of the words joined by single spaces
    for node in body.descendants:
        if isinstance(node, NavigableString) and node.parent is not None and node.parent.name not in _INVISIBLE:
            more = node.split()
            words += more
            length += len(more) + sum(map(len, more))
            if length > SHORT_PAGE:
                return None
    return " ".join(words)


@cache
def _compiled(selector: str) -> Any:
    return compile_selector(selector).compiled


def block_reason(page: str | bytes | BeautifulSoup, index: PageIndex | None = None) -> str | None:
    """What blocks this page ("Cloudflare browser check", "captcha", ...), or None when it is not a block page.
    ``index`` is the parsed page's :class:`PageIndex` when the caller has one (built here otherwise)."""
    soup = page if isinstance(page, BeautifulSoup) else parse_html(page)
    if index is None:
        index = PageIndex(soup)
    title_tag = index.first("title")
    title = title_tag.get_text(" ", strip=True) if title_tag is not None else ""
    for name, selector, title_pattern in _CHALLENGES:
        if (selector and index.select_one(_compiled(selector)) is not None) or (
                title_pattern and title_pattern.match(title)):
            return name
    if index.select_one(_compiled('meta[name^="citation_"]')) is not None:
        return None
    text = _short_visible_text(soup, index)
    if text is None:
        return None
    for name, selector, text_pattern in _SIGNS:
        if (selector and index.select_one(_compiled(selector)) is not None) or (
                text_pattern and text_pattern.search(text)):
            return name
    return None
