"""The title of an article page no rule reads: the best of the page's own candidates, tidied.

A page names its article in several places of different trust: bibliographic meta tags (``citation_title``,
``dc.title``, schema.org ``headline``, ``og:title``), the main ``<h1>`` and the browser's ``<title>``. The meta tags are
written for machines and are read by :mod:`pubfetch.extract.meta` with their own part types; this module gives the
candidates a person sees, for pages without such tags or whose tags are empty: the main ``<h1>`` read as a whole (a
subtitle in a nested element is part of it), else the ``<title>`` with the site's name and boilerplate ("Welcome to
...", "... Full-Text HTML", "| Journal name") cut away. Every title, from whatever source, loses trailing footnote
marks (†, ‡, *, ...), which belong to the page's notes and not to the title.
"""

from __future__ import annotations

import copy
import re
from urllib.parse import urlsplit

from bs4 import BeautifulSoup
from bs4.element import Tag

from pubfetch.extract.clean import page_title
from pubfetch.extract.clean_keywords import tokenize
from pubfetch.extract.html_text import element_text
from pubfetch.extract.visible import is_shown
from pubfetch.rules.page_index import PageIndex, find_named

__all__ = ["SITE_DECORATED", "main_heading", "meta_title", "tidy_title", "title_from_page", "title_without_boilerplate"]

#: Marks that point to a footnote when they end a title ("Title†", "Title*,1").
_MARKS = frozenset("*\u2020\u2021\u00a7\u00b6\u2016\u204e\u2217")
_SPACE = re.compile(r"[\s\u00a0]+")
#: Separators a <title> puts between the article title and the site's name.
_SEPARATORS = re.compile(r"\s+(?:\||-|\u2013|\u2014|:|::|\u00bb|\u00b7)\s+|\s*\|\s*")
_WELCOME = re.compile(r"(?i)^\s*welcome\s+to\s+[^:|]{1,80}?[:|]\s*")
#: Words that mark a <title> segment as the site's label rather than the article's title.
_BOILERPLATE = re.compile(
    r"(?i)\b(full[- ]?text(?:\s*html)?(?:\s*page)?|abstract\s+page|home\s*page|sign\s+in|log\s+in|online\s+library|"
    r"xplore|sciencedirect|springerlink|wiley|oxford\s+academic|taylor\s*&\s*francis|psycnet|pubmed|"
    r"europe\s+pmc|researchgate|jstor|journals?)\b"
)
#: An element holding a footnote mark inside a heading: a <sup> of marks or digits, a link to a note.
_NOTE_TEXT = re.compile(r"^[\s*\u2020\u2021\u00a7\u00b6\u2016\u204e\u2217,\d a-z]{1,6}$")
_NOT_MAIN = ("header", "nav", "footer", "aside")
#: The page's first <h1> elements that are candidates for its title: a page has a few (the site's name, the
#: article's, a widget's); a page of thousands is not read for each of them.
_MAX_HEADINGS = 50
#: Footnote-mark elements taken off a heading's end, at most: a title carries one or two; the text of any more is
#: still cut by :func:`without_trailing_marks`, and each one taken costs a walk over the rest of the heading.
_MAX_NOTE_MARKS = 8
#: Tokens of a <header>'s id or class that name it the article's rather than the site's.
_ARTICLE_NAMES = frozenset(("article", "entry", "paper", "publication", "chapter"))
#: The meta tag formats whose title a site often copies from its <title>, site name included ("T | Journal"):
#: Open Graph, Twitter and the generic ``title`` tag. Bibliographic tags (citation, Dublin Core, ...) name the article.
SITE_DECORATED = frozenset(("og", "twitter", "meta"))
_ENDS_IN_SEPARATOR = re.compile(f"(?:{_SEPARATORS.pattern})$")
_STARTS_WITH_SEPARATOR = re.compile(f"^(?:{_SEPARATORS.pattern})")


def without_trailing_marks(text: str) -> str:
    """``text`` without the footnote marks that end it: runs of marks, each run followed by spaces or commas and at
    most one digit ("Title*", "Title\u2020,1", "Title *\u2021"), and the space before them.

    One scan from the end, so a title ending in any number of marks costs its length; the regular expression this
    replaces, a repeated group of repeated marks, backtracked exponentially on a long run of marks not at the end.
    """
    if text.endswith("\n"):  # as a pattern's end would: before a final line break
        text = text[:-1]
    end = len(text)
    while True:
        i = end
        if i and text[i - 1].isdecimal():
            i -= 1
        while i and (text[i - 1].isspace() or text[i - 1] == ","):
            i -= 1
        if not i or text[i - 1] not in _MARKS:
            break
        while i and text[i - 1] in _MARKS:
            i -= 1
        end = i
    if end == len(text):
        return text
    return text[:end].rstrip()


def tidy_title(text: str) -> str:
    """Whitespace collapsed, trailing footnote marks removed."""
    text = _SPACE.sub(" ", text).strip()
    return without_trailing_marks(text).strip()


def _words(text: str) -> int:
    return len(text.split())


def _is_main(tag: Tag) -> bool:
    return tag.name in ("main", "article") or tag.get("role") == "main"


def _is_articles_header(header: Tag, in_main: bool) -> bool:
    """Whether a <header> is the article's own (its title, authors, dates) rather than the site's: it sits in the
    main content or an <article> (``in_main``), or its id or class names the article ("article-header",
    "entry-header")."""
    names = {t for value in (header.get("id"), header.get("class")) if value for t in tokenize(value)}
    return bool(names & _ARTICLE_NAMES) or in_main


def _in_page_chrome(tag: Tag) -> bool:
    """Whether an element sits in the page's menus, side columns or footer, or in the site's header."""
    parents = [p for p in tag.parents if isinstance(p, Tag)]
    in_main = False  # whether one of the ancestors above the one looked at is the main content: walked from the top
    chrome = False
    for parent in reversed(parents):
        if parent.name in _NOT_MAIN and (parent.name != "header" or not _is_articles_header(parent, in_main)):
            chrome = True
        in_main = in_main or _is_main(parent)
    return chrome


def _is_note_mark(tag: Tag) -> bool:
    text = tag.get_text()
    return bool(_NOTE_TEXT.match(text)) and (tag.name == "sup" or str(tag.get("href", "")).startswith("#"))


def _heading_text(h1: Tag) -> str:
    """An <h1> as one line (its nested spans, such as a subtitle's, included) without the footnote marks at its end
    (a <sup> or a link to a note; a <sup> inside the title, as in "<sup>13</sup>C", stays)."""
    heading = copy.copy(h1)
    for link in heading.find_all("a", href=True):  # a link to a note, anywhere: "Title<sup><a href="#fn1">1</a></sup>"
        if str(link["href"]).startswith("#") and _NOTE_TEXT.match(link.get_text()):
            parent = link.parent
            link.decompose()
            if isinstance(parent, Tag) and parent.name == "sup" and not parent.get_text().strip():
                parent.decompose()
    taken = 0
    for last in reversed(heading.find_all(("sup", "a"))):  # from the end: each time the last mark that is left
        if taken == _MAX_NOTE_MARKS:
            break
        if not _is_note_mark(last):  # (a <sup> that held a removed link may be empty now)
            continue
        own = {id(text) for text in last.find_all(string=True)}  # the mark's own text is not what follows it
        after = "".join(t for t in last.find_all_next(string=True) if id(t) not in own)  # the copy is detached
        if without_trailing_marks(after).strip(" ,\u00a0\n\t"):
            break
        last.decompose()
        taken += 1
    return tidy_title(element_text(heading))


def main_heading(soup: BeautifulSoup, hint: str = "", index: PageIndex | None = None) -> str:
    """The article's <h1> as a whole: the one whose text the ``hint`` (the <title>) contains, else the first in the
    page's main content (``main``, ``article``, ``role=main``), else the first outside headers, menus and footers;
    "" when none has two words. Hidden ones (``display:none``, ``hidden``, ``aria-hidden``) are candidates only on a
    page without a shown one. ``index``: the page's, which finds the headings without a walk."""
    found = find_named(soup, ("h1",), index, _MAX_HEADINGS)
    candidates = [h for h in found if isinstance(h, Tag) and not _in_page_chrome(h)]
    shown = [h for h in candidates if is_shown(h)]
    candidates = shown or candidates  # a hidden <h1> only where no shown one is there
    texts = [(h, _heading_text(h)) for h in candidates]
    texts = [(h, t) for h, t in texts if _words(t) >= 2]
    if not texts:
        return ""
    squashed_hint = "".join(hint.split()).lower()
    if squashed_hint:
        for _, text in texts:
            if "".join(text.split()).lower() in squashed_hint:
                return text
    for h, text in texts:
        if any(isinstance(p, Tag) and _is_main(p) for p in h.parents):
            return text
    return texts[0][1]


def _site_words(url: str, site_names: tuple[str, ...]) -> set[str]:
    host = (urlsplit(url).hostname or "").lower()
    words = {w for w in re.split(r"[.\-]", host) if len(w) > 3 and w not in ("www", "com", "org", "net")}
    for name in site_names:
        words.update(w.lower() for w in re.findall(r"\w+", name) if len(w) > 3)
    return words


def _is_label(segment: str, site: set[str], names: set[str]) -> bool:
    """Whether a segment of a <title> is the site's or journal's name or a label rather than the article's title."""
    lowered = segment.lower()
    if lowered in names or _BOILERPLATE.search(segment) and _words(segment) <= 6:
        return True
    words = [w.lower() for w in re.findall(r"\w+", segment)]
    return bool(words) and sum(w in site for w in words) * 2 >= len(words)


def title_without_boilerplate(title: str, url: str = "", site_names: tuple[str, ...] = ()) -> str:
    """A <title> without its site part: "Welcome to X: " cut, then of the segments between separators the longest
    one that is not the site's name or a label ("Full-Text HTML", "Journal of ...", the host's words)."""
    title = _WELCOME.sub("", _SPACE.sub(" ", title).strip())
    segments = [s.strip() for s in _SEPARATORS.split(title) if s and s.strip()]
    if len(segments) <= 1:
        return tidy_title(title)
    site = _site_words(url, site_names)
    names = {n.strip().lower() for n in site_names if n.strip()}
    kept = [s for s in segments if not _is_label(s, site, names)]
    return tidy_title(max(kept or segments, key=len))


def title_from_page(soup: BeautifulSoup, url: str = "", site_names: tuple[str, ...] = ()) -> str:
    """The title a person reads on a page without title meta tags: the main <h1>, else the cleaned <title>."""
    raw_title = page_title(soup)
    heading = main_heading(soup, raw_title)
    if heading:
        return heading
    return title_without_boilerplate(raw_title, url, site_names)


def meta_title(title: str, source: str, soup: BeautifulSoup, url: str = "", site_names: tuple[str, ...] = (),
               index: PageIndex | None = None) -> str:
    """A title meta tag's title as the article's: tidied, and for a tag that sites decorate (``source`` in
    :data:`SITE_DECORATED`) without the site's part, so that no boilerplate outranks the page's own title. The site's
    part is what surrounds the page's main ``<h1>`` when the tag is that heading with a segment before or after it
    ("Site - T", "T | Journal"); else the first or last segments that are the site's or journal's name or a label;
    a "Welcome to X:" opening always. ``index``: the page's, if at hand."""
    title = tidy_title(title)
    if source not in SITE_DECORATED or not title:
        return title
    title = _WELCOME.sub("", title)
    heading = main_heading(soup, title, index)
    start = title.lower().find(heading.lower()) if heading else -1
    if start >= 0:
        if len(heading) == len(title):
            return title
        before, after = title[:start], title[start + len(heading):]
        if ((not before or _ENDS_IN_SEPARATOR.search(before)) and (not after or _STARTS_WITH_SEPARATOR.match(after))
                and len(before) + len(after) < len(heading)):  # an <h1> of the journal's name is not the article's
            return heading
    bounds = [0] + [i for m in _SEPARATORS.finditer(title) for i in m.span()] + [len(title)]
    spans = list(zip(bounds[::2], bounds[1::2], strict=True))  # each segment's (start, end) between separators
    site = _site_words(url, site_names)
    names = {n.strip().lower() for n in site_names if n.strip()}
    first, last = 0, len(spans) - 1
    while last > first and _is_label(title[slice(*spans[last])].strip(), site, names):
        last -= 1
    while last > first and _is_label(title[slice(*spans[first])].strip(), site, names):
        first += 1
    return tidy_title(title[spans[first][0]:spans[last][1]])
