"""A page index answers a selector with the elements soupsieve's own select and select_one give, in the same order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubfetch.engine.assembly import builtin_rules
from pubfetch.extract.clean import parse_html
from pubfetch.extract.scrape import base_url
from pubfetch.rules.page_index import PageIndex
from pubfetch.rules.selectors import compile_selector

PAGE = """<html><head><title>t</title><meta name="citation_title" content="A"><meta name="generator"
content="Open Journal Systems 3.3"></head><body>
<div id="Main" class="Article full-text"><h1 class="c-article-title">Title</h1>
<section id="sec1"><h3>Intro</h3><p class="x  y">one</p></section>
<section id="sec2"><h3>Methods</h3><p class="y">two</p><a href="https://janeway.systems/x">j</a>
<div class="box"><div class="box"><p>nested</p><em>e</em></div><p>after</p></div></section></div>
<template><main class="content"><p class="y">inside a template</p></main></template>
<main class="content"><p class="Y">three</p><span class="sr-only">hidden</span></main>
<div class="visually-hidden"><h1 class="visually-hidden">kept</h1></div>
<p data-x="1">four</p></body></html>"""

SELECTORS = [
    "p", "p.y", ".Y", "#main", "#Main > section > h3", ".article.full-text #sec2 > h3", "main", "main p",
    "section:nth-child(2) p", "h3, h1", "p.y, h1, #sec1", 'meta[name^="citation_"]',
    'meta[name=generator][content^="Open Journal Systems"]', 'a[href*="janeway.systems"]', "[data-x]",
    ".sr-only, .visually-hidden:not(h1)", "div:has(> h1)", "p:not(.y)", "*", "template p", ":scope > body p",
    "h1.c-article-title, .c-article-header",
    # a last part that requires no name, id or class: the children or descendants of what the part before requires
    "#Main > :not(h1)", ".article section > :not(h3)", "section > *", ".full-text :not(p)", ".box > *",
    ".box :not(em)", "main > :not(.sr-only), #sec2 > *", ".box > :not(div), p", "body :not(section) > :not(p)",
    ".box + *", ".nothing > :not(p)",
]


def same_as_soupsieve(soup, index: PageIndex, css: str) -> None:
    compiled = compile_selector(css).compiled
    assert [id(t) for t in index.select(compiled)] == [id(t) for t in compiled.select(soup)], css
    assert index.select_one(compiled) is compiled.select_one(soup), css


@pytest.mark.parametrize("css", SELECTORS)
def test_selectors_match_as_soupsieve(css: str) -> None:
    soup = parse_html(PAGE)
    same_as_soupsieve(soup, PageIndex(soup), css)


def test_template_contents_are_not_the_page() -> None:
    soup = parse_html(PAGE)
    texts = [t.get_text() for t in PageIndex(soup).select(compile_selector("main p").compiled)]
    assert texts == ["three"]


def test_empty_selector_selects_nothing() -> None:
    soup = parse_html(PAGE)
    index = PageIndex(soup)
    assert index.select(compile_selector("").compiled) == []
    assert index.select_one(compile_selector("").compiled) is None


def test_a_selector_given_an_index_of_another_tree_asks_soupsieve() -> None:
    soup, other = parse_html(PAGE), parse_html("<html><body><p>x</p></body></html>")
    selector = compile_selector("p")
    assert [t.get_text() for t in selector.select(other, PageIndex(soup))] == ["x"]


@pytest.mark.slow  # soupsieve's own matching on every platform's page: the reference is the slow part
def test_platform_fingerprints_and_rule_selectors_on_recorded_pages(corpus_dir: Path) -> None:
    """Every built-in platform fingerprint, and the selectors of the rule whose fingerprint the page carries, on one
    recorded publisher page of each platform of the third batch."""
    rules = builtin_rules()
    fingerprints = [rule.recognise.compiled for rule in rules.sites.values() if rule.recognise and rule.recognise.css]
    assert len(fingerprints) >= 10
    with open(corpus_dir / "pages3.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    by_platform = {}
    for row in rows:
        if row["resource"] == "publisher_page" and row["status"] == 200 and row.get("body"):
            by_platform.setdefault(row["body"].split("/")[2], row)
    assert len(by_platform) >= 15
    recognised = 0
    for row in by_platform.values():
        soup = parse_html((corpus_dir / row["body"]).read_bytes())
        index = PageIndex(soup)
        for compiled in fingerprints:
            assert index.select_one(compiled) is compiled.select_one(soup), (row["name"], compiled.pattern)
        rule = rules.recognise(soup, index)
        if rule is None:
            continue
        recognised += 1
        for key in ("title", "abstract", "fulltext", "keywords", "doi", "pdf_a"):
            selector = rule.selector(key)
            if selector is not None and selector.css:
                compiled = selector.compiled
                found = [id(t) for t in index.select(compiled)]
                assert found == [id(t) for t in compiled.select(soup)], (row["name"], key)
    assert recognised >= 5


def test_the_base_address_found_through_the_index_is_the_one_find_gives() -> None:
    """``base_url`` with the page's index gives what the walk of the page gives, a <base> in a <template> included."""
    pages = ['<html><head><base href="/root/"><base href="/second/"></head><body><p>x</p></body></html>',
             "<html><head><base target=_blank><base href='sub/'></head><body></body></html>",
             "<html><head></head><body><p>no base</p></body></html>",
             "<html><body><template><base href='/inside/'></template><p>y</p></body></html>"]
    found = []
    for html in pages:
        soup = parse_html(html)
        found.append(base_url(soup, "https://example.org/a/b", PageIndex(soup)))
        assert found[-1] == base_url(soup, "https://example.org/a/b"), html
    assert found == ["https://example.org/root/", "https://example.org/a/sub/", "https://example.org/a/b",
                     "https://example.org/inside/"]


TEMPLATE_PAGES = [
    PAGE,
    "<html><head><title>t</title></head><body><template><h1>in</h1><meta name=x></template><h1>out</h1>"
    "<div><h1>second</h1><template><template><link rel=license href=/l></template></template></div></body></html>",
    "<html><body><template><p>only</p></template><h2>h</h2></body></html>",
]


@pytest.mark.parametrize("html", TEMPLATE_PAGES)
def test_lookups_by_name_give_find_alls_answer_whatever_a_template_holds(html: str) -> None:
    """``first`` and ``named_below`` answer as ``find``/``find_all`` (which enter a ``<template>``) for names a
    template holds and names it does not, with the index of a walk and the one filed as the tree was made."""
    from pubfetch.extract.soup_build import page_from_text

    built = page_from_text(html)
    assert built is not None
    for soup, index in ((built[0], built[1]), (parse_html(html), None)):
        index = index or PageIndex(soup)
        assert index.in_template(("p",)) == (html != TEMPLATE_PAGES[1])
        for name in ("h1", "h2", "p", "meta", "link", "title", "main", "body", "template"):
            assert index.first(name) is soup.find(name), name
            names = (name, "h1") if name != "h1" else (name,)
            assert [id(t) for t in index.named_below(soup, names)] == [id(t) for t in soup.find_all(names)], name
            for ancestor in soup.find_all(True):
                if ancestor.find_parent("template") is None:
                    assert [id(t) for t in index.named_below(ancestor, (name,))] == [
                        id(t) for t in ancestor.find_all(name)], (name, ancestor.name)
