"""The generic article reader on publisher pages it has never seen: pages built from independent parts (where the
title is given, how the abstract is marked, which meta descriptions the page carries, what wraps the article, the
chrome around it), so that each promise of docs/rules.md ("When no rule fits") is checked across many layouts:

* the abstract the page marks by a heading, a class or id, a role or itemprop, or JATS-like sections is found whole,
  a structured abstract with its labels on their own lines, never another paper's abstract from a side column;
* a meta description (``description``, ``og:description``, ``dc.description``, ``twitter:description``,
  ``citation_abstract``, JSON-LD ``description``/``abstract``) that truncates the visible abstract or says less than
  it never wins over it; one that says more is kept, and a page that shows no abstract gets the meta one;
* the title comes from the meta tags, else the main ``<h1>`` read whole (wherever the article puts it), else the
  ``<title>``, and never keeps a footnote mark or the site's boilerplate;
* the body is found in any container, without menus, cookie banners, acknowledgements or references (however they
  are headed), and the full text is title, abstract and body in that order;
* a rule whose selectors find nothing leaves its fields to the reader.

Titles and abstracts are checked where a user meets them: the publication fetched by its DOI through the DOI-page
code (over the in-process transport), with the part types deciding between the reader, the meta tags and the rules;
the rules are the test's own (none, or one written for another layout whose selectors find nothing), so that no
shipped rule or platform fingerprint reads these pages instead of the reader.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from pubfetch.extract.article import read_article
from pubfetch.extract.article_abstract import find_abstract, gives_way, is_truncation
from pubfetch.extract.article_title import title_from_page
from pubfetch.extract.clean import parse_html
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.net.mapping_transport import Canned
from pubfetch.resources import site
from pubfetch.rules import ScrapingRules
from support.fetchrun import fetch_run
from support.publisher_pages import (
    ABSTRACT_MARKUP,
    ABSTRACT_PARAGRAPHS,
    ACKNOWLEDGEMENT,
    BLURB,
    BODY_HEADINGS,
    CONTAINERS,
    COOKIE,
    H1_MARKUP,
    H1_PLACES,
    HOST,
    JOURNAL,
    MARKUP_MARKS,
    MENU,
    REFERENCE,
    SECTIONS,
    SITE,
    STRUCTURED,
    TEXT_MARKS,
    TITLE,
    TITLE_META,
    TITLE_TAGS,
    Page,
    abstract_text,
    body_paragraph,
    meta,
    publisher_page,
    squash,
)

URL = f"https://www.{HOST}/doi/full/10.5555/tide.2021.1"
Fetch = Callable[[str], Publication]


#: A rule for the test's host written for a layout the pages do not have: every selector finds nothing, unless a
#: page wraps its body in the rule's element.
STALE_RULE = ("'127\\.0\\.0\\.1': tidewater\n---\ntidewater:\n  title: 'h1.current-title'\n"
              "  abstract: 'section.current-abstract'\n  fulltext: 'div.current-body'\n")


@contextmanager
def page_fetcher(rules: ScrapingRules | None = None) -> Iterator[Fetch]:
    """Fetch a publication whose DOI leads to a page answering the given HTML, as a user's fetch reaches a publisher
    page (no rule knows the host unless ``rules`` are given); gives the publication."""
    run = fetch_run(1)
    numbers = itertools.count()
    with run.context(rules=rules) as ctx:
        def fetch_page(html: str) -> Publication:
            doi = f"10.5555/tide.{next(numbers)}"
            page = f"{run.services.base}/publisher/{doi.rsplit('.', 1)[1]}"
            run.transport.answers[run.services.base + "/doi/" + doi.upper()] = Canned(
                302, "", "text/plain", {"Location": page})
            run.transport.answers[page] = Canned(200, html, "text/html; charset=utf-8")
            state = run.pub_state(doi)
            site.fetch_doi(ctx, state)
            assert state.pub.visited_sites, "the page was not reached"
            return state.pub
        yield fetch_page


@pytest.fixture(scope="module")
def fetch() -> Iterator[Fetch]:
    with page_fetcher(ScrapingRules()) as fetch_page:
        yield fetch_page


@pytest.fixture(scope="module")
def fetch_with_stale_rule() -> Iterator[Fetch]:
    rules = ScrapingRules()
    rules.add_journals(STALE_RULE, "<test>")
    with page_fetcher(rules) as fetch_page:
        yield fetch_page


def short_page(**parts: object) -> str:
    """A page holding no body (title and abstract only): the reader does not search it for one."""
    return publisher_page(Page(body=False, **parts))  # type: ignore[arg-type]


# -------------------------------------------------------------------------------------------------------- abstract


@pytest.mark.parametrize("container", list(CONTAINERS))
@pytest.mark.parametrize("structured", [False, True], ids=["plain", "structured"])
@pytest.mark.parametrize("markup", list(ABSTRACT_MARKUP))
def test_the_abstract_the_page_marks_is_found_whole(markup: str, structured: bool, container: str) -> None:
    html = publisher_page(Page(abstract=ABSTRACT_MARKUP[markup](structured), container=container))
    assert find_abstract(parse_html(html)) == abstract_text(structured)


@pytest.mark.parametrize("markup", list(ABSTRACT_MARKUP))
def test_the_abstract_ends_where_the_page_ends_it_without_a_body(markup: str) -> None:
    """An abstract page (no body) ends the abstract at its back matter or its page's chrome."""
    html = publisher_page(Page(abstract=ABSTRACT_MARKUP[markup](True), body=False))
    assert find_abstract(parse_html(html)) == abstract_text(True)


HEADED = [m for m in ABSTRACT_MARKUP if m.startswith(("h2", "h3", "h4", "strong", "div.title", "label"))]


@pytest.mark.parametrize("keywords", [False, True], ids=["", "keywords"])
@pytest.mark.parametrize("body_headings", list(BODY_HEADINGS))
@pytest.mark.parametrize("structured", [False, True], ids=["plain", "structured"])
@pytest.mark.parametrize("markup", HEADED)
def test_an_abstract_under_a_heading_ends_where_the_body_or_keywords_begin(markup: str, structured: bool,
                                                                           body_headings: str, keywords: bool) -> None:
    """Older layouts head the body's sections with bold lines ("Introduction", "1. INTRODUCTION") and follow the
    abstract with a keywords line: neither is part of the abstract."""
    html = publisher_page(Page(abstract=ABSTRACT_MARKUP[markup](structured), body_headings=body_headings,
                               keywords=keywords))
    assert find_abstract(parse_html(html)) == abstract_text(structured)


def test_an_abstract_structured_as_introduction_methods_results_discussion_keeps_its_first_label() -> None:
    labels = ("Introduction", "Methods", "Results", "Discussion")
    block = "<p><b>Abstract</b></p>" + "".join(f"<p><b>{label}</b></p><p>{text}</p>"
                                               for label, (_, text) in zip(labels, STRUCTURED, strict=True))
    html = publisher_page(Page(abstract=block, body_headings="bold-line"))
    assert find_abstract(parse_html(html)) == "\n\n".join(f"{label}\n\n{text}" for label, (_, text)
                                                           in zip(labels, STRUCTURED, strict=True))


def test_a_structured_abstract_keeps_every_label_on_its_own_line() -> None:
    for markup in ABSTRACT_MARKUP:
        lines = find_abstract(parse_html(publisher_page(Page(abstract=ABSTRACT_MARKUP[markup](True))))).split("\n")
        assert [label for label, _ in STRUCTURED] == [line for line in lines if line in dict(STRUCTURED)], markup


@pytest.mark.parametrize("related_first", [False, True], ids=["column-after", "column-before"])
@pytest.mark.parametrize("markup", ["class-abstract", "h3-ABSTRACT", "role-doc-abstract", "id-abstract"])
def test_another_papers_abstract_in_a_side_column_is_never_taken(markup: str, related_first: bool) -> None:
    with_article = publisher_page(Page(abstract=ABSTRACT_MARKUP[markup](False), related_first=related_first))
    assert find_abstract(parse_html(with_article)) == abstract_text()
    without = publisher_page(Page(abstract="", related_first=related_first))
    assert find_abstract(parse_html(without)) == ""


# ------------------------------------------------------------------------------------------- meta descriptions

FULL = " ".join(ABSTRACT_PARAGRAPHS)
RUN_IN = " ".join(f"{label}: {text}" for label, text in STRUCTURED)  # a structured abstract flattened into one line
DESCRIPTION_TAGS: dict[str, Callable[[str], str]] = {
    "description": lambda text: meta("description", text),
    "og:description": lambda text: meta("og:description", text, "property"),
    "dc.description": lambda text: meta("dc.description", text),
    "DC.Description": lambda text: meta("DC.Description", text),
    "twitter:description": lambda text: meta("twitter:description", text),
    "citation_abstract": lambda text: meta("citation_abstract", text),
    "jsonld-description": lambda text: '<script type="application/ld+json">' + json.dumps(
        {"@context": "https://schema.org", "@type": "ScholarlyArticle", "headline": TITLE, "description": text})
        + "</script>",
    "jsonld-abstract": lambda text: '<script type="application/ld+json">' + json.dumps(
        {"@context": "https://schema.org", "@type": "ScholarlyArticle", "headline": TITLE, "abstract": text})
        + "</script>",
}
#: Meta descriptions that only repeat the visible abstract: (structured abstract?, description).
TRUNCATIONS = {
    "prefix": (False, FULL[:240]),
    "prefix-mid-word": (False, FULL[:233]),
    "prefix-dots": (False, FULL[:240].rstrip() + "..."),
    "prefix-ellipsis": (False, FULL[:240].rstrip() + "\u2026"),
    "prefix-bracketed-dots": (False, FULL[:240].rstrip() + " [...]"),
    "short-prefix-dots": (False, FULL[:90] + "..."),
    "whole": (False, FULL),
    "whole-respaced": (False, FULL.replace(". ", ".  ").replace(", ", ",\n")),
    "second-paragraph-cut": (False, ABSTRACT_PARAGRAPHS[1][:200] + "..."),
    "structured-run-in-cut": (True, RUN_IN[:250] + "..."),
    "structured-run-in-whole": (True, RUN_IN),
    "structured-labels-dropped-cut": (True, " ".join(text for _, text in STRUCTURED)[:300] + "\u2026"),
}


@pytest.mark.parametrize("variant", list(TRUNCATIONS))
def test_a_truncated_description_is_recognised(variant: str) -> None:
    structured, description = TRUNCATIONS[variant]
    assert gives_way(description, abstract_text(structured))
    if variant != "structured-labels-dropped-cut":  # that one does not open with the abstract's opening
        assert is_truncation(description, abstract_text(structured))


@pytest.mark.parametrize("markup", ["h2-Abstract", "class-abstractSection", "jats-div.abstract-div.sec"])
@pytest.mark.parametrize("variant", list(TRUNCATIONS))
@pytest.mark.parametrize("tag", list(DESCRIPTION_TAGS))
def test_a_truncated_description_never_wins_over_the_visible_abstract(fetch: Fetch, tag: str, variant: str,
                                                                      markup: str) -> None:
    structured, description = TRUNCATIONS[variant]
    pub = fetch(short_page(head=DESCRIPTION_TAGS[tag](description),
                           abstract=ABSTRACT_MARKUP[markup](structured)))
    assert (pub.abstract.content, pub.abstract.type) == (abstract_text(structured), PartType.webpage)


@pytest.mark.parametrize("tag", list(DESCRIPTION_TAGS))
def test_a_site_blurb_never_wins_over_the_visible_abstract(fetch: Fetch, tag: str) -> None:
    pub = fetch(short_page(head=DESCRIPTION_TAGS[tag](BLURB)))
    assert (pub.abstract.content, pub.abstract.type) == (abstract_text(), PartType.webpage)


@pytest.mark.parametrize("tag", list(DESCRIPTION_TAGS))
def test_without_a_visible_abstract_the_description_is_the_abstract(fetch: Fetch, tag: str) -> None:
    pub = fetch(short_page(head=DESCRIPTION_TAGS[tag](FULL), abstract=""))
    assert pub.abstract.content == FULL
    assert pub.abstract.type.is_better_than(PartType.webpage)


@pytest.mark.parametrize("tag", list(DESCRIPTION_TAGS))
def test_without_a_visible_abstract_a_description_cut_short_is_no_abstract(fetch: Fetch, tag: str) -> None:
    """The opening of an abstract cut at a character count is not the abstract: the entry keeps none from the page,
    and a source that has the whole abstract fills it."""
    pub = fetch(short_page(head=DESCRIPTION_TAGS[tag](FULL[:240] + "..."), abstract=""))
    assert pub.abstract.content == ""


@pytest.mark.parametrize("tag", list(DESCRIPTION_TAGS))
def test_a_description_saying_more_than_the_visible_abstract_is_kept(fetch: Fetch, tag: str) -> None:
    """A page that shows only the start of its abstract: the meta tag's longer one wins by its part type."""
    shown = f'<div class="abstract"><p>{ABSTRACT_PARAGRAPHS[0]}</p></div>'
    pub = fetch(short_page(head=DESCRIPTION_TAGS[tag](FULL), abstract=shown))
    assert pub.abstract.content == FULL
    assert pub.abstract.type.is_better_than(PartType.webpage)


# ---------------------------------------------------------------------------------------------------------- title


@pytest.mark.parametrize("mark", list(TEXT_MARKS) + ["none"])
@pytest.mark.parametrize("source", list(TITLE_META))
def test_a_meta_tags_title_loses_its_footnote_marks(fetch: Fetch, source: str, mark: str) -> None:
    marked = TITLE + TEXT_MARKS.get(mark, "")
    pub = fetch(short_page(head=TITLE_META[source](marked), h1=TITLE + MARKUP_MARKS.get(mark, "")))
    assert pub.title.content == TITLE
    assert pub.title.type.is_better_than(PartType.webpage)  # the meta tag's title, not the reader's


@pytest.mark.parametrize("title_tag", ["pipe-journal", "welcome", "site-dash", "fulltexthtml"])
@pytest.mark.parametrize("mark", list(MARKUP_MARKS) + ["none"])
@pytest.mark.parametrize("h1", list(H1_MARKUP))
def test_an_h1_is_read_whole_without_its_footnote_marks(h1: str, mark: str, title_tag: str) -> None:
    markup, title = H1_MARKUP[h1]
    html = publisher_page(Page(h1=markup + MARKUP_MARKS.get(mark, ""), title_tag=TITLE_TAGS[title_tag]))
    assert title_from_page(parse_html(html), URL) == title


@pytest.mark.parametrize("place", list(H1_PLACES))
@pytest.mark.parametrize("mark", ["none", "dagger", "sup-digit", "sup-letter", "sup-link", "link-mark"])
@pytest.mark.parametrize("h1", list(H1_MARKUP))
def test_a_page_with_an_h1_and_no_title_meta_gets_its_title(fetch: Fetch, h1: str, mark: str, place: str) -> None:
    markup, title = H1_MARKUP[h1]
    pub = fetch(short_page(h1=markup + MARKUP_MARKS[mark] if mark != "none" else markup, h1_place=place,
                           title_tag=f"{SITE} - {title}"))
    assert (pub.title.content, pub.title.type) == (title, PartType.webpage)


@pytest.mark.parametrize("container", list(CONTAINERS))
@pytest.mark.parametrize("place", list(H1_PLACES))
@pytest.mark.parametrize("title_tag", ["Article | Tidewater Press", "Tidewater Press", f"{TITLE} | {JOURNAL}"])
def test_the_h1_is_the_title_wherever_the_article_puts_it(title_tag: str, place: str, container: str) -> None:
    """An <h1> in the article's own header or title block is its title, whatever the <title> says (one that does not
    name the article, or names it without its subtitle); the site's header outside the article is not."""
    markup, title = H1_MARKUP["subtitle-span"]
    html = publisher_page(Page(h1=markup, h1_place=place, container=container, title_tag=title_tag))
    html = html.replace('<div class="logo">', '<h1 class="logo">').replace(f"{SITE}</div>", f"{SITE}</h1>")
    assert title_from_page(parse_html(html), URL) == title


@pytest.mark.parametrize("mark", ["none", "dagger", "asterisk", "asterisk-comma-digit"])
@pytest.mark.parametrize("title_tag", list(TITLE_TAGS))
def test_a_title_element_alone_gives_the_title_without_the_sites_boilerplate(fetch: Fetch, title_tag: str,
                                                                              mark: str) -> None:
    tag = TITLE_TAGS[title_tag].replace(TITLE, TITLE + TEXT_MARKS.get(mark, ""))
    pub = fetch(short_page(h1="", title_tag=tag))
    assert pub.title.content == TITLE


@pytest.mark.parametrize("source", ["og:title", "twitter:title", "title"])
@pytest.mark.parametrize("title_tag", list(TITLE_TAGS))
def test_a_meta_title_copied_from_the_title_element_loses_the_sites_part(fetch: Fetch, title_tag: str,
                                                                         source: str) -> None:
    """Sites copy their <title>, site name and all, into og:title, twitter:title or a title meta tag: the site's
    part is what surrounds the page's <h1>, or, on a page without one, the journal's or publisher's name."""
    attribute = "property" if source.startswith("og:") else "name"
    decorated = meta(source, TITLE_TAGS[title_tag], attribute)
    assert fetch(short_page(head=decorated)).title.content == TITLE
    names = meta("citation_journal_title", JOURNAL) + meta("citation_publisher", SITE)
    assert fetch(short_page(head=decorated + names, h1="")).title.content == TITLE


def test_an_h1_of_the_journals_name_does_not_replace_the_meta_title(fetch: Fetch) -> None:
    html = short_page(head=meta("og:title", f"{TITLE} | {JOURNAL}", "property"), h1=JOURNAL, title_tag=JOURNAL)
    assert fetch(html).title.content == TITLE


@pytest.mark.parametrize("source", ["citation_title", "og:title"])
def test_a_title_holding_a_separator_of_its_own_stays_whole(fetch: Fetch, source: str) -> None:
    whole = "Marsh accretion - a review of forty sites"
    attribute = "property" if source.startswith("og:") else "name"
    pub = fetch(short_page(head=meta(source, whole, attribute), h1=whole, title_tag=f"{whole} | {JOURNAL}"))
    assert pub.title.content == whole


# ----------------------------------------------------------------------------------------------------------- body


@pytest.mark.parametrize("headings", list(BODY_HEADINGS))
@pytest.mark.parametrize("chrome", ["chrome", "column-first", "bare"])
@pytest.mark.parametrize("container", list(CONTAINERS))
def test_the_body_is_found_in_any_container_without_chrome_or_back_matter(container: str, chrome: str,
                                                                           headings: str) -> None:
    """Whatever wraps the article, wherever the side column is, and however the sections and the back matter are
    headed (``<h2>``, bold lines, numbered bold capitals such as "7. REFERENCES")."""
    html = publisher_page(Page(container=container, chrome=chrome != "bare", related_first=chrome == "column-first",
                               body_headings=headings))
    article = read_article(html, parse_html(html), URL)
    assert article.body_source, "no body found"
    body = squash(article.body)
    for section, heading in enumerate(SECTIONS):
        assert squash(heading).lower() in body.lower()
        for paragraph in (0, 1):
            assert squash(body_paragraph(section, paragraph)) in body
    for not_body in (ACKNOWLEDGEMENT, REFERENCE, COOKIE, *MENU[1:], *ABSTRACT_PARAGRAPHS):
        assert squash(not_body) not in body, not_body


@pytest.mark.parametrize("container", list(CONTAINERS))
def test_the_full_text_is_title_abstract_and_body_in_that_order(fetch: Fetch, container: str) -> None:
    pub = fetch(publisher_page(Page(container=container, abstract=ABSTRACT_MARKUP["h2-Abstract"](True))))
    text = pub.fulltext.content
    assert pub.fulltext.type is PartType.webpage
    assert text.startswith(f"{TITLE}\n\n{abstract_text(True)}\n\n")
    positions = [text.find(body_paragraph(section, 0)) for section in range(len(SECTIONS))]
    assert -1 not in positions and positions == sorted(positions)
    assert ACKNOWLEDGEMENT not in text and REFERENCE not in text and COOKIE not in text


# ------------------------------------------------------------------------------------- a rule that finds nothing


@pytest.mark.parametrize("mark", ["none", "dagger", "sup-digit"])
@pytest.mark.parametrize("markup", ["h3-ABSTRACT", "strong-Abstract", "class-hlFld-Abstract", "jats-div.abstract-div.sec"])
def test_a_rules_empty_fields_are_read_by_the_reader(fetch_with_stale_rule: Fetch, markup: str, mark: str) -> None:
    """A rule written for another layout of the site: the reader gives the title, the abstract and the body, with a
    truncated description left out."""
    html = publisher_page(Page(h1=TITLE + MARKUP_MARKS.get(mark, ""), abstract=ABSTRACT_MARKUP[markup](True),
                               head=meta("dc.description", RUN_IN[:200] + "...")))
    pub = fetch_with_stale_rule(html)
    assert (pub.title.content, pub.title.type) == (TITLE, PartType.webpage)
    assert (pub.abstract.content, pub.abstract.type) == (abstract_text(True), PartType.webpage)
    assert pub.fulltext.content.startswith(f"{TITLE}\n\n{abstract_text(True)}\n\n")
    assert body_paragraph(4, 1) in pub.fulltext.content and REFERENCE not in pub.fulltext.content


@pytest.mark.parametrize("markup", ["h2-Abstract", "class-abstract", "role-doc-abstract"])
def test_a_rules_body_gets_the_readers_title_and_abstract_in_front(fetch_with_stale_rule: Fetch, markup: str) -> None:
    html = publisher_page(Page(abstract=ABSTRACT_MARKUP[markup](False))).replace(
        "<section><h2>Introduction", '<div class="current-body"><section><h2>Introduction').replace(
        '<section class="ack">', '</div><section class="ack">')
    pub = fetch_with_stale_rule(html)
    assert pub.fulltext.type is PartType.doi  # the rule's body, the page's own type
    assert pub.fulltext.content.startswith(f"{TITLE}\n\n{abstract_text()}\n\nIntroduction\n\n")
    assert body_paragraph(4, 1) in pub.fulltext.content and ACKNOWLEDGEMENT not in pub.fulltext.content
