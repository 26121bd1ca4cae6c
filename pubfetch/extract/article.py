"""The generic article reader: title, abstract and body of a publisher page that no scraping rule reads.

Used for a page whose host and markup no rule knows, and for the fields a rule's selectors find nothing for (a rule
written for a publisher's current layout meeting an older one). It reads what a person sees:

* title: the page's title meta tag when it has one (``citation_title``, ``dc.title``, schema.org ``headline``,
  ``og:title``, in the meta parser's order), else the main ``<h1>`` as a whole, else the ``<title>`` without the site's
  name and boilerplate; footnote marks removed (:mod:`pubfetch.extract.article_title`);
* abstract: the block the page marks or heads as its abstract (:mod:`pubfetch.extract.article_abstract`); a meta
  description is not the reader's business (the meta parser reads it, and the caller drops it when it is only a
  truncation of this abstract);
* body: trafilatura's main content without back matter (:mod:`pubfetch.extract.maincontent`). The rule between the
  two main-content finders: trafilatura's body is taken when it is a full text (below); else the body the jsoup-like
  cleaning keeps (without the parts that back-matter headings head) is taken when that is one (trafilatura now and then
  takes a side column or a layout table for the main content; the cleaning keeps everything but menus, footers and
  reference lists). Either counts as the article's full text only when, without the
  abstract, it holds at least :data:`MIN_PARAGRAPHS` paragraphs of running text (lines of :data:`MIN_PARAGRAPH_WORDS`
  words or more, with more than one sentence), together at least :data:`MIN_BODY` non-space characters: a landing
  page's leftovers (bylines, reference lists, metrics, cookie notes) stay below that. A page whose text has fewer
  than :data:`MIN_SENTENCES` sentences is not searched at all.

The full text is PubFetcher's format: title, abstract and body joined by blank lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import islice

from bs4 import BeautifulSoup

from pubfetch.extract.article_abstract import find_abstract
from pubfetch.extract.article_title import tidy_title, title_from_page
from pubfetch.extract.clean import clean_document, clean_html, meta_description
from pubfetch.extract.html_text import format_text
from pubfetch.extract.maincontent import Section, drop_back_matter, main_content

__all__ = ["MIN_BODY", "MIN_PARAGRAPHS", "MIN_PARAGRAPH_WORDS", "MIN_SENTENCES", "GenericArticle", "article_title",
           "cleaned_page", "read_article"]

#: Non-space characters of running text the body must hold (besides title and abstract) to be a full text ...
MIN_BODY = 2000
#: ... in at least this many paragraphs of running text ...
MIN_PARAGRAPHS = 4
#: ... each of at least this many words (shorter ones are captions, bylines, notes, metadata lines).
MIN_PARAGRAPH_WORDS = 20
#: Sentences (counted as breaks between two) a page's text must hold before a body is searched for: a body of
#: :data:`MIN_BODY` characters of running text has about 20 sentences, a landing page's text far fewer.
MIN_SENTENCES = 25
_MIN_REPEAT = 40
#: The end of one sentence and the start of the next: running text has them, reference entries, journal lines and
#: author lists do not ("Trent, H. M., Isomorphisms ...,J. Acoust. Soc. 27, 1955, 500-527.").
_SENTENCE_BREAK = re.compile(r"[a-z]{2}[.!?]\s+[A-Z]")
_SCRIPT_START = re.compile(r"<(script|style)\b")
_TAG = re.compile(r"<[^<>]*>")
_OPENING = 100


@dataclass
class GenericArticle:
    """What the reader found; ``sections`` is the body's heading structure (title, level, text), ``body_source``
    names the finder ("trafilatura", "cleaning", or "" when the page holds no full text)."""

    title: str = ""
    abstract: str = ""
    body: str = ""
    sections: list[Section] = field(default_factory=list)
    body_source: str = ""
    #: the body the jsoup-like cleaning kept, when the reader ran it (the soup is then cleaned): a caller falling back
    #: to the cleaned page takes it instead of cleaning again
    cleaned: str | None = None

    @property
    def fulltext(self) -> str:
        """Title, abstract and body joined by blank lines; "" when the page holds no body."""
        if not self.body:
            return ""
        return "\n\n".join(p for p in (self.title, self.abstract, self.body) if p)


def _squash(text: str) -> str:
    return "".join(text.split())


def _paragraphs(text: str) -> list[str]:
    return [p for p in text.split("\n\n") if p.strip()]


def _repeats(paragraph: str, abstract: str) -> bool:
    """Whether a paragraph is (part of) the abstract, or holds it (an abstract run together with its byline)."""
    squashed = _squash(paragraph)
    return len(paragraph) >= _MIN_REPEAT and (squashed in abstract or abstract[:_OPENING] in squashed)


def _without_abstract(sections: list[Section], abstract: str) -> list[Section]:
    """Paragraphs that repeat the abstract removed (a page printing the abstract without a heading above it)."""
    if not abstract:
        return sections
    shown = _squash(abstract)
    out = []
    for section in sections:
        kept = [p for p in _paragraphs(section.text) if not _repeats(p, shown)]
        if kept or section.title:
            out.append(Section(section.title, section.level, "\n\n".join(kept)))
    return out


def _is_fulltext(prose: list[str], abstract: str) -> bool:
    """Whether the running text, without the abstract, is an article's body (see the module's rule); each line counts
    on its own (a cleaned page's block of menu lines is no paragraph)."""
    shown = _squash(abstract)
    lines = (line for p in prose for line in p.split("\n"))
    paragraphs = [p for p in lines if len(p.split()) >= MIN_PARAGRAPH_WORDS and _SENTENCE_BREAK.search(p)
                  and not (shown and _repeats(p, shown))]
    return len(paragraphs) >= MIN_PARAGRAPHS and sum(len(_squash(p)) for p in paragraphs) >= MIN_BODY


def _could_hold_body(scriptless: str) -> bool:
    """Whether the page's text has the sentences a body needs (:data:`MIN_SENTENCES`): a quick look at the markup
    (scripts and styles already taken out) without its tags, which spares landing and abstract pages the search for
    a body."""
    breaks = islice(_SENTENCE_BREAK.finditer(_TAG.sub(" ", scriptless)), MIN_SENTENCES)
    return sum(1 for _ in breaks) >= MIN_SENTENCES


def _without_scripts(html: str) -> str:
    """The page without the contents of its scripts and styles, in one pass (an unclosed one runs to the end)."""
    lowered = html.lower()
    kept: list[str] = []
    pos = 0
    for match in _SCRIPT_START.finditer(lowered):
        if match.start() < pos:
            continue
        kept.append(html[pos:match.start()])
        end = lowered.find("</" + match.group(1), match.end())
        pos = len(html) if end < 0 else end
    kept.append(html[pos:])
    return "".join(kept)


def _format(sections: list[Section]) -> str:
    return "\n\n".join(b for s in sections for b in (s.title, s.text) if b)


def article_title(soup: BeautifulSoup, url: str = "", meta_title: str = "", site_names: tuple[str, ...] = ()) -> str:
    """The reader's title of a page (see the module): the meta tags' title tidied, else the page's own."""
    return tidy_title(meta_title) or title_from_page(soup, url, site_names)


def read_article(html: str, soup: BeautifulSoup, url: str = "", meta_title: str = "",
                 site_names: tuple[str, ...] = (), *, body: bool = True) -> GenericArticle:
    """Read a page. ``soup`` is the parsed ``html``; when trafilatura finds nothing it is cleaned IN PLACE (read
    everything else from it first). ``meta_title`` is the title the meta tags give, if any; ``site_names`` the site's
    and journal's names (left out of a ``<title>``); ``body=False`` skips the body (the caller has one)."""
    article = GenericArticle()
    article.title = article_title(soup, url, meta_title, site_names)
    article.abstract = find_abstract(soup)
    if not body:
        return article
    scriptless = _without_scripts(html)  # trafilatura drops scripts and styles too: it is given the page without them
    if not _could_hold_body(scriptless):
        return article
    found = main_content(scriptless, url, article.title)
    sections = _without_abstract(found.sections, article.abstract)
    if _is_fulltext(found.prose, article.abstract):
        article.body, article.sections, article.body_source = _format(sections), sections, "trafilatura"
    elif soup.body is not None:
        clean_document(soup, publication=True)
        drop_back_matter(soup.body)
        cleaned = article.cleaned = format_text(soup.body)
        if _is_fulltext(_paragraphs(cleaned), article.abstract):
            sections = _without_abstract([Section("", 0, cleaned)], article.abstract)
            article.body, article.sections, article.body_source = _format(sections), sections, "cleaning"
    return article


def cleaned_page(soup: BeautifulSoup, url: str, article: GenericArticle) -> str:
    """PubFetcher's text of a page without a rule whose body the reader did not find (:func:`clean_html`: the meta
    description, then the cleaned body), taking the reader's cleaning when it ran rather than cleaning twice."""
    if article.cleaned is None:
        return clean_html(soup, url, publication=True)
    return "\n\n".join(p for p in (meta_description(soup), article.cleaned) if p)
