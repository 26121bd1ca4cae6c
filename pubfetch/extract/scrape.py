"""Apply scraping rules to HTML: a journal rule gives an ArticleRecord, a webpage rule gives
title/content/license/language.

Pure functions over (html, url, rule); fetching, JavaScript and part types are the caller's business. How the selected
elements become text follows PubFetcher (spec section 8):

* IDs, title, subtitle, keywords, license and language take the text of elements on one line (jsoup's ``text()``);
  IDs and title use the FIRST matching element; a subtitle is appended as ``" : subtitle"``.
* abstract, fulltext and webpage content take ALL matching elements, each formatted as paragraphs (block elements on
  their own lines, blank lines around paragraphs, headings and lists), joined by blank lines; elements without text
  are skipped. The fulltext is title, abstract and body joined by blank lines, so it reads as the whole article.
* ``keywords_split`` strips a leading "Keywords:" and splits at ``, ; |``; ``keywords`` wins when both give some.
* ``corresp_author_names`` and ``corresp_author_emails`` pair up when their counts are equal; otherwise only the
  e-mails are kept (names alone when there are no e-mails at all).
* links (``fulltext_a``, ``pdf_a``) are absolute ``href`` values resolved against the page URL (and <base>);
  ``*_src``/``*_dst`` rewrite the page URL itself.

Two improvements over PubFetcher: when a selector matches an element and also one of its descendants, only the outer
element is used, so no text appears twice; and a label the page prints inside the selected title or abstract
("Title:", "Abstract:", an "ABSTRACT" heading line), text meant only for screen readers (but a heading labelling the
abstract, which the generic reader follows where the rule finds no abstract) and hidden jump menus (lists of links) are
dropped, so a rule need not fight the markup to leave them out (a BeautifulSoup argument loses
those elements). Footnote marks ending a title (†, ‡, *) are dropped too.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import cache
from urllib.parse import unquote, urljoin, urlsplit

from bs4 import BeautifulSoup
from bs4.element import Tag

from pubfetch import ids
from pubfetch.extract.abstract_bounds import block_text, in_other_part, reads_as_abstract, without_copies
from pubfetch.extract.article_title import tidy_title
from pubfetch.extract.clean import clean_html, page_title, parse_html
from pubfetch.extract.html_text import element_text, format_text
from pubfetch.extract.visible import drop_hidden_menus
from pubfetch.model.parts import CorrespAuthor
from pubfetch.model.record import ArticleRecord, Link
from pubfetch.rules import JournalRule, Selector, WebpageRule, compile_selector
from pubfetch.rules.page_index import PageIndex

log = logging.getLogger(__name__)

_KEYWORDS_BEGIN = re.compile(r"(?i)^[\s\u00a0]*keywords?[\s\u00a0]*:*[\s\u00a0]*")
_KEYWORD_SEPARATOR = re.compile(r"[,;|]")
#: A label the page prints in front of the value inside the selected element ("Title: ...", "ABSTRACT ...").
#: Text only screen readers announce ("Unavailable" beside a title, "Opens in a new window"): not part of any value.
_SCREEN_READER_ONLY = ".screenreader-text, .sr-only, .screen-reader-text, .u-visually-hidden, .visually-hidden:not(h1)"
# Pop-up copies inside the article text, which would put reference text or the article's header into a body
# paragraph: a citation's reference (Atypon's .ref-overlay, Taylor & Francis's .referenceDiv drop-down) and a figure
# viewer's copy of the article's title and authors.
_INLINE_POPUPS = ".ref-lnk .ref-overlay, .referenceDiv .dropDown, #figureViewerArticleInfo, #tableViewerArticleInfo"
_TITLE_LABEL = re.compile(r"^title\s*:\s*(?=\S)", re.IGNORECASE)
_ABSTRACT_LABEL = re.compile(r"^abstract(\s*[:.]\s*|\s*\n\s*|\s+(?=[A-Z]))(?=\S)", re.IGNORECASE)
_ABSTRACT_HEADING = re.compile(r"(?i)^\s*(?:abstract|summary)\s*[:.]?\s*$")
_DOI_RESOLVER = re.compile(r"(?i)^(?:https?://)?(?:dx\.|www\.)?doi\.org/")
_LINK_SCHEMES = ("http", "https", "ftp")

Html = str | bytes | BeautifulSoup


@dataclass
class WebpageContent:
    """What a webpage rule (or automatic cleaning) extracts from a page."""

    title: str = ""
    content: str = ""
    license: str = ""
    language: str = ""


# ------------------------------------------------------------------------------------------------------ helpers


@cache
def _not_shown() -> Selector:
    """Screen-reader-only text and the pop-up copies inside the article text, taken out before a rule reads a page."""
    return compile_selector(f"{_SCREEN_READER_ONLY}, {_INLINE_POPUPS}")


def _is_abstract_label(tag: Tag) -> bool:
    """A heading read only by screen readers that labels the abstract ("Abstract" over a standfirst)."""
    return tag.name in ("h1", "h2", "h3", "h4", "h5", "h6") and bool(_ABSTRACT_HEADING.match(tag.get_text()))


def _soup(html: Html) -> BeautifulSoup:
    return html if isinstance(html, BeautifulSoup) else parse_html(html)


def _outermost(elements: list[Tag]) -> list[Tag]:
    """Drop elements that have an ancestor in the same selection (their text is in the ancestor's already)."""
    if len(elements) < 2:
        return elements
    chosen = {id(e) for e in elements}
    kept = []
    for element in elements:
        parent = element.parent
        while parent is not None and id(parent) not in chosen:
            parent = parent.parent
        if parent is None:
            kept.append(element)
    return kept


def first_text(root: Tag, selector: Selector | None, index: PageIndex | None = None) -> str:
    """Text (one line) of the first element the selector matches; "" when none. ``index``: ``root``'s, if at hand."""
    if selector is None:
        return ""
    element = selector.select_one(root, index)
    return element_text(element) if element is not None else ""


def all_texts(root: Tag, selector: Selector | None, index: PageIndex | None = None) -> list[str]:
    """One-line texts of all matching elements, empty ones dropped."""
    if selector is None:
        return []
    texts = (element_text(e) for e in _outermost(selector.select(root, index)))
    return [t for t in texts if t]


def joined_text(root: Tag, selector: Selector | None, index: PageIndex | None = None) -> str:
    """All matching elements formatted as paragraphs and joined by blank lines (abstract, fulltext, content)."""
    if selector is None:
        return ""
    texts = (format_text(e) for e in _outermost(selector.select(root, index)))
    return "\n\n".join(t for t in texts if t)


def _abstract(root: Tag, selector: Selector | None, index: PageIndex) -> str:
    """A rule's abstract: its elements' text without the parts that are not the abstract (highlights, a visual
    abstract, keywords, widgets: :func:`pubfetch.extract.abstract_bounds.block_text`; a selected element that is or
    belongs to such a part, as ``.abstract > *`` selects a highlights box or an author summary's paragraphs, is
    skipped), a hidden element's copy of a shown one (:func:`pubfetch.extract.abstract_bounds.without_copies`) and a
    leading label; "" when it does not read as an abstract (a reference list, a menu)."""
    if selector is None:
        return ""
    elements = [e for e in _outermost(selector.select(root, index)) if not in_other_part(e)]
    texts = without_copies(elements, [block_text(e, shown_only=False) for e in elements])
    text = _ABSTRACT_LABEL.sub("", "\n\n".join(t for t in texts if t), count=1)
    return text if reads_as_abstract(text) else ""


def _join(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


def base_url(soup: BeautifulSoup, url: str, index: PageIndex | None = None) -> str:
    """The URL relative links resolve against: <base href> (itself relative to the page) or the page URL. ``index``,
    when it is the index of ``soup``, finds the <base> without a walk of the page (a page with a <template>, whose
    contents the index leaves out and ``find`` does not, is walked where one holds a ``<base>``)."""
    if index is not None and index.root is soup and not index.in_template(("base",)):
        base: object = next((tag for tag in index.named("base") if tag.get("href") is not None), None)
    else:
        base = soup.find("base", href=True)
    if isinstance(base, Tag):
        href = str(base.get("href") or "").strip()
        if href:
            try:
                return urljoin(url, href)
            except ValueError:
                log.warning("ignoring malformed <base href='%s'> in %s", href, url)
    return url


def absolute_url(href: str, base: str) -> str | None:
    """An absolute http(s)/ftp URL for an href, or None for empty, fragment-only, mailto:, javascript: and bad ones."""
    href = href.strip()
    if not href or href.startswith("#"):
        return None
    try:
        absolute = urljoin(base, href)
        parts = urlsplit(absolute)
    except ValueError:
        return None
    if parts.scheme.lower() not in _LINK_SCHEMES or not parts.netloc:
        return None
    return absolute


def _without_fragment(url: str) -> str:
    return url.split("#", 1)[0]


# ---------------------------------------------------------------------------------------------------- journals


def _first_id(text: str, valid: bool, extracted: list[str]) -> str:
    if valid:
        return text
    return extracted[0] if extracted else ""


def scrape_pmid(text: str) -> str:
    """A PMID from element text: the whole text, or a labelled ``PMID: n`` inside it."""
    text = text.strip()
    return _first_id(text, ids.is_pmid(text), ids.extract_pmids(text) if text else [])


def scrape_pmcid(text: str) -> str:
    text = text.strip()
    return _first_id(text, ids.is_pmcid(text), ids.extract_pmcids(text) if text else [])


def scrape_doi(text: str) -> str:
    """A normalised DOI from element text: a bare DOI, a doi.org link (with or without scheme) or ``DOI: 10...``.

    DOIs containing spaces are refused, as in PubFetcher's scrapers.
    """
    if doi := ids.doi_in_value(text):
        return ids.normalise_doi(doi)
    found = ids.extract_dois(text) if text else []
    if found:
        return found[0]
    for token in text.split():  # a resolver link inside text: "doi: https://doi.org/10.1101/x", "Cite as ..."
        if _DOI_RESOLVER.match(token) and (doi := ids.doi_in_value(token)):
            return ids.normalise_doi(doi)
    return ""


def _keywords(root: Tag, rule: JournalRule, index: PageIndex) -> list[str]:
    keywords = all_texts(root, rule.selector("keywords"), index)
    if not keywords:
        for text in all_texts(root, rule.selector("keywords_split"), index):
            keywords.extend(_KEYWORD_SEPARATOR.split(_KEYWORDS_BEGIN.sub("", text, count=1)))
    return list(dict.fromkeys(k.strip() for k in keywords if k.strip()))


def _email(element: Tag) -> str:
    """The address of a mailto: link (query and percent-encoding removed), else the text if it looks like one."""
    href = str(element.get("href") or "").strip()
    if href[:7].lower() == "mailto:":
        return unquote(href[7:].split("?", 1)[0]).strip()
    text = element_text(element)
    return text if "@" in text and " " not in text else ""


def _corresp_authors(root: Tag, rule: JournalRule, index: PageIndex) -> list[CorrespAuthor]:
    names = [n.rstrip(" ,;*") for n in all_texts(root, rule.selector("corresp_author_names"), index)]
    names = [n for n in names if n]
    selector = rule.selector("corresp_author_emails")
    emails = [_email(el) for el in _outermost(selector.select(root, index))] if selector else []
    emails = [e for e in emails if e]
    if emails and len(names) == len(emails):
        return [CorrespAuthor(name=n, email=e) for n, e in zip(names, emails, strict=True)]
    if emails:
        if names:
            log.info("%d corresponding author names but %d e-mails, keeping the e-mails only", len(names), len(emails))
        return [CorrespAuthor(email=e) for e in dict.fromkeys(emails)]
    return [CorrespAuthor(name=n) for n in dict.fromkeys(names)]


def _links(soup: BeautifulSoup, url: str, rule: JournalRule, index: PageIndex) -> list[Link]:
    base = base_url(soup, url, index)
    page = _without_fragment(url)
    found: list[Link] = []
    for kind, rewrite, key in (("html", rule.fulltext_rewrite, "fulltext_src"), ("pdf", rule.pdf_rewrite, "pdf_src")):
        if rewrite is not None and (new := rewrite.apply(url)) is not None and absolute_url(new, url) is not None:
            found.append(Link(new, kind, key))
    for kind, key in (("html", "fulltext_a"), ("pdf", "pdf_a")):
        selector = rule.selector(key)
        if selector is None:
            continue
        for element in selector.select(soup, index):
            href = absolute_url(str(element.get("href") or ""), base)
            if href is not None and _without_fragment(href) != page:
                found.append(Link(href, kind, key))
    unique: dict[tuple[str, str], Link] = {}
    for link in found:
        unique.setdefault((link.url, link.kind), link)
    return list(unique.values())


def scrape_journal(html: Html, url: str, rule: JournalRule) -> ArticleRecord:
    """Apply a journal site's rules to its page at ``url`` (the final URL, used for links and URL rewrites)."""
    soup = _soup(html)
    return scrape_journal_tree(soup, url, rule, PageIndex(soup))[0]


def scrape_journal_tree(soup: BeautifulSoup, url: str, rule: JournalRule,
                        index: PageIndex) -> tuple[ArticleRecord, PageIndex]:
    """:func:`scrape_journal` on a parsed page and its ``index`` (built on the tree as parsed), for a caller that has
    both: the record, and the index of the tree as the scraping left it (hidden parts taken out through it), for the
    caller's own selectors over that tree."""
    for hidden in _not_shown().select(soup, index):
        if not _is_abstract_label(hidden):  # the generic reader, filling what the rule misses, follows that label
            index.remove(hidden)
    if (shown := index.first("body")) is not None:
        drop_hidden_menus(shown, index)
    record = ArticleRecord()
    record.pmid = scrape_pmid(first_text(soup, rule.selector("pmid"), index))
    record.pmcid = scrape_pmcid(first_text(soup, rule.selector("pmcid"), index))
    record.doi = scrape_doi(first_text(soup, rule.selector("doi"), index))
    title = first_text(soup, rule.selector("title"), index)
    subtitle = first_text(soup, rule.selector("subtitle"), index)
    title = tidy_title(_TITLE_LABEL.sub("", title, count=1))
    record.title = f"{title} : {subtitle}" if title and subtitle else title
    record.keywords = _keywords(soup, rule, index)
    record.abstract = _abstract(soup, rule.selector("abstract"), index)
    body = joined_text(soup, rule.selector("fulltext"), index)
    record.fulltext = _join(record.title, record.abstract, body) if body else ""
    record.flags["body"] = body  # the full text without title and abstract, for a caller that finds those elsewhere
    record.corresp_author = _corresp_authors(soup, rule, index)
    record.links = _links(soup, url, rule, index)
    return record, index


# ---------------------------------------------------------------------------------------------------- webpages


def scrape_webpage(html: Html, url: str, rule: WebpageRule | None) -> WebpageContent:
    """Title, content, license and language of a webpage or doc under its rule (None: no rule matched).

    Missing title -> the page's <title>; missing content -> the automatically cleaned page (meta description first);
    an empty selector ('') -> an empty field. A BeautifulSoup argument is cleaned in place when cleaning is needed.
    """
    soup = _soup(html)
    result = WebpageContent()
    if rule is None:
        result.title = page_title(soup)
        result.content = clean_html(soup, url)
        return result
    result.title = page_title(soup) if rule.title is None else first_text(soup, rule.title)
    result.license = first_text(soup, rule.license)
    result.language = ", ".join(t for t in all_texts(soup, rule.language) if t)  # PubFetcher joins every match
    result.content = clean_html(soup, url) if rule.content is None else joined_text(soup, rule.content)
    return result


def select_first_text(html: Html, url: str, selector: str) -> str:
    """Text of the first element an ad-hoc selector matches (PubFetcher's -fetch-webpage-selector title).

    ``url`` is only there to mirror the other functions. Raises ValueError for a selector that is not valid CSS.
    """
    return first_text(_soup(html), compile_selector(selector))


def select_text(html: Html, url: str, selector: str) -> str:
    """All elements an ad-hoc selector matches, as paragraphs joined by blank lines (-fetch-webpage-selector content).

    Raises ValueError for a selector that is not valid CSS.
    """
    return joined_text(_soup(html), compile_selector(selector))
