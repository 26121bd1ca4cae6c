"""rules/xpath.py: a selector answered through lxml's XPath (by a page's index made as its tree was made from lxml's)
selects the elements soupsieve selects, in the same order: crafted selectors and markup for each construct, random
selectors on random pages (hypothesis), the built-in rules on the recorded pages, and the tree after elements are
taken out of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import soupsieve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubfetch.engine.assembly import builtin_rules
from pubfetch.extract.blockpage import _CHALLENGES, _SIGNS
from pubfetch.extract.scrape import _not_shown
from pubfetch.extract.soup_build import page_from_text
from pubfetch.rules.page_index import PageIndex
from pubfetch.rules.selectors import compile_selector
from pubfetch.rules.xpath import translated
from support.corpus_pages import recorded_publisher_pages

PAGE = """<!DOCTYPE html><html lang=en><head><title>t</title><meta name="citation_title" content="A">
<meta name=Generator content="Open Journal Systems 3.3"><meta name="dc.type" content="Text"></head><body>
<div id="Main" class="Article full-text"><h1 class="c-article-title">Title <span class="sr-only">x</span></h1>
<section id="sec1"><h3>Intro</h3><p class="x  y">one</p><p class=" y\tz ">one b</p><p></p></section>
<section id="sec2"><h3>Methods</h3><p class="y">two</p><a href="https://janeway.systems/x.PDF" rel="nofollow x">j</a>
<a href="mailto:a@b.c?subject=x" type="TEXT/html" data-q='it&apos;s "q"'>m</a><a href="">empty</a>
<div class="box"><div class="box"><p>nested</p><em>e</em></div><p>after</p></div></section>
<ul class="menu"><li><a href=#a>a</a></li><li><a href=#b>b</a></li><li class=last>c</li><li>d</li><li>e</li></ul>
<ol><li>1<li>2<li>3</ol></div>
<template><main class="content"><p class="y">inside a template</p><div class="box">tb</div></template>
<main class="content"><p class="Y">three</p><span class="sr-only">hidden</span><input type=checkbox checked></main>
<div class="visually-hidden"><h1 class="visually-hidden">kept</h1></div><div data-x="1" class="">four</div>
<table><tr><td headers="a b">c</td><th>h</th></tr></table><o:p>office</o:p>
<p data-x="ab-cd" lang="en-GB" title="Abstract">x</p><p data-x="AB">y</p></body></html>"""

#: a selector of each construct the translation knows, and of those it leaves to soupsieve
SELECTORS = [
    "p", "P", "p.y", ".Y", "#main", "#Main", "#Main > section > h3", ".article.full-text #sec2 > h3", "main p",
    "section:nth-child(2) p", "h3, h1", "p.y, h1, #sec1", 'meta[name^="citation_"]', "meta[name=generator]",
    'meta[name=Generator][content^="Open Journal Systems"]', 'a[href*="janeway.systems"]', '[href$=".pdf"]',
    '[href$=".pdf" i]', "[href$=PDF]", "[data-x]", "[data-x=ab-cd]", "[data-x=AB i]", "[data-x=ab s]", '[href=""]',
    '[href^=""]', '[href*=""]', "[type='text/html']", "[type='TEXT/HTML' s]", "[rel=nofollow]", "[rel~=nofollow]",
    "[lang|=en]", "[data-x!=AB]", "[class=' y z ']", "[class='y z']", "[class^=x]", "[class*='x y']",
    '[data-q="it\'s \\"q\\""]', "[headers='a b']", "[checked]", "[checked=checked]", "[CHECKED]",
    ".sr-only, .visually-hidden:not(h1)", "div:has(> h1)", "div:has(p)", "div:has(+ div)", "h3:has(~ p.y)",
    "section:has(> p:-soup-contains-own('two'))", "p:not(.y)", ":not(p, div, span)", "p:not(section > p)",
    "p:is(.x, #sec1 p)", "p:where(.z)", "li:first-child", "li:last-child", "li:only-child", "li:nth-child(2n+1)",
    "li:nth-child(odd)", "li:nth-child(-n+2)", "li:nth-last-child(2)", "li:nth-child(0)", "li:nth-child(2 of .last)",
    "p:first-of-type", "p:last-of-type", "p:nth-of-type(2)", ":first-of-type", "h3 + p", "h3 ~ p", "li + li + li",
    "h1 span", "template p", "template", ".box > *", ".box :not(em)", "body :not(section) > :not(p)", ".box + *",
    ".nothing > :not(p)", "#Main > :not(h1)", "p:-soup-contains('one')", "p:-soup-contains-own('x')", ":root",
    "p:empty", ":root > body > div", "o\\:p", "|p", "*|p", "html", "* > html", "input:checked", "p:lang(en)",
    "p[title=abstract i], p[title=Abstract]", "a[href^='mailto:' i]", "div.box div.box p, div.box > p",
]


def same_as_soupsieve(soup: Any, index: PageIndex, css: str) -> None:
    compiled = compile_selector(css).compiled
    expected = [id(t) for t in compiled.select(soup)]
    assert [id(t) for t in index.select(compiled)] == expected, css
    assert index.select_one(compiled) is compiled.select_one(soup), css


def _page(html: str) -> tuple[Any, PageIndex]:
    built = page_from_text(html)
    assert built is not None
    return built


@pytest.mark.parametrize("css", SELECTORS)
def test_each_construct_selects_as_soupsieve(css: str) -> None:
    soup, index = _page(PAGE)
    assert index._lxml is not None  # the page is answered through lxml
    same_as_soupsieve(soup, index, css)


def test_the_translation_is_exact_where_it_can_be_and_a_superset_elsewhere() -> None:
    def translation(css: str) -> Any:
        return translated(compile_selector(css).compiled)

    for css in ("p.y", "#sec1 > p:not(.x)", 'a[href$=".pdf" i]', "li:nth-child(2n+1)", "div:has(> h1)", "h3 ~ p"):
        assert translation(css).exact, css
    for css in ("p:-soup-contains('one')", "a[rel=nofollow]", "p[lang|=en]", "p:lang(en)", "body > o\\:p, p.y"):
        assert not translation(css).exact, css
    for css in ("p.y", "#a .b > :not(.c)", "[x^=y]"):
        assert translation(css).removal_safe, css
    for css in ("li:first-child", "h3 + p", "div:has(p)", "p:not(h3 ~ p)"):
        assert not translation(css).removal_safe, css
    # nothing to narrow (soupsieve's own walk), or relative to where the selection starts: not translated
    for css in ("*", "p, *", ":scope > p", ":not(p:-soup-contains('x'))", "[rel=nofollow]"):
        assert translation(css) is None, css


def test_a_page_whose_classes_hold_other_whitespace_is_left_to_soupsieve() -> None:
    """BeautifulSoup splits a class at a no-break space or a form feed, XPath's normalize-space does not."""
    for odd in ("\xa0", "\x0c", "\u2003"):
        soup, index = _page(f"<html><body><p class='a{odd}b'>x</p><p class='a'>y</p></body></html>")
        assert index._lxml is None
        same_as_soupsieve(soup, index, "p.a")
        same_as_soupsieve(soup, index, "p.b")
    soup, index = _page("<html><body><p class='a\tb\n c\r'>x</p></body></html>")
    assert index._lxml is not None
    same_as_soupsieve(soup, index, "p.c")


def test_elements_taken_out_through_the_index_are_out_of_its_answers() -> None:
    soup, index = _page(PAGE)
    index.select(compile_selector("p").compiled)  # an answer cached before the removal is not given after it
    for css in (".sr-only", "#sec1 > p.x", "li.last", ".box .box"):
        for tag in compile_selector(css).compiled.select(soup):
            index.remove(tag)
    for css in SELECTORS:
        same_as_soupsieve(soup, index, css)
    assert [t.name for t in index.named_below(soup, ("em", "p"))] == [t.name for t in soup.find_all(("em", "p"))]
    assert index.first("body") is soup.body


def test_named_lookups_are_find_alls() -> None:
    for html in (PAGE, PAGE.replace("<template>", "<div>").replace("</template>", "</div>")):
        soup, index = _page(html)
        body = soup.body
        for names in (("ul", "ol"), ("p",), ("li", "a", "em")):
            assert [id(t) for t in index.named_below(body, names)] == [id(t) for t in body.find_all(names)]
            assert [id(t) for t in index.named_below(soup, names)] == [id(t) for t in soup.find_all(names)]
        assert index.first("body") is soup.body and index.first("nothing") is None


# ---------------------------------------------------------------------------------------------------------------------
# random selectors on random pages
# ---------------------------------------------------------------------------------------------------------------------

_NAMES = ("div", "p", "span", "a", "li", "ul", "section", "template", "h2")
_CLASSES = ("a", "b", "c", "A")
_SPACES = (" ", "  ", "\t", "\n", "\xa0", "\x0c")


@st.composite
def _markup(draw: Any, depth: int = 0) -> str:
    out = []
    for _ in range(draw(st.integers(0, 4 if depth < 3 else 0))):
        name = draw(st.sampled_from(_NAMES))
        attrs = ""
        if draw(st.booleans()):
            classes = draw(st.lists(st.sampled_from(_CLASSES), max_size=3))
            space = draw(st.sampled_from(_SPACES[:4] if draw(st.integers(0, 9)) else _SPACES))
            attrs += f' class="{space}{space.join(classes)}"'
        if draw(st.booleans()):
            attrs += f' id="{draw(st.sampled_from(_CLASSES))}"'
        if draw(st.booleans()):
            attrs += f' data-x="{draw(st.sampled_from(("", "ab", "AB", "a-b", "x ab", "ab.pdf")))}"'
        text = draw(st.sampled_from(("", "t", " ")))
        out.append(f"<{name}{attrs}>{text}{draw(_markup(depth + 1))}</{name}>")
    return "".join(out)


@st.composite
def _compound(draw: Any) -> str:
    parts = [draw(st.sampled_from(("", "*") + _NAMES))]
    for _ in range(draw(st.integers(0, 2))):
        parts.append(draw(st.sampled_from(
            [f".{c}" for c in _CLASSES] + [f"#{c}" for c in _CLASSES]
            + ["[data-x]", "[data-x=ab]", "[data-x^=a]", "[data-x$=pdf]", "[data-x*=b]", "[data-x=AB i]",
               "[class^=a]", "[class*='a b']", ":first-child", ":last-child", ":nth-child(2n+1)",
               ":nth-last-child(-n+2)", ":only-child", ":not(.a)", ":not(div > *)", ":has(> p)", ":has(.b)",
               ":has(+ span)", ":is(p, .c)", ":-soup-contains('t')", ":empty"])))
    compound = "".join(parts)
    return compound if compound not in ("", "*") else "p"


@st.composite
def _selector(draw: Any) -> str:
    alternatives = []
    for _ in range(draw(st.integers(1, 2))):
        parts = [draw(_compound())]
        for _ in range(draw(st.integers(0, 2))):
            parts.append(draw(st.sampled_from((" ", " > ", " + ", " ~ "))))
            parts.append(draw(_compound()))
        alternatives.append("".join(parts))
    return ", ".join(alternatives)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=_markup(), selectors=st.lists(_selector(), min_size=1, max_size=4), taken=st.integers(0, 3))
def test_random_selectors_on_random_pages(body: str, selectors: list[str], taken: int) -> None:
    built = page_from_text(f"<html><body>{body}</body></html>")
    assert built is not None
    soup, index = built
    for css in selectors:
        same_as_soupsieve(soup, index, css)
    for tag in soupsieve.select("body *", soup)[::3][:taken]:  # then with some elements taken out
        if not tag.decomposed:
            index.remove(tag)
    for css in selectors:
        same_as_soupsieve(soup, index, css)


# ---------------------------------------------------------------------------------------------------------------------
# the built-in rules on the recorded pages
# ---------------------------------------------------------------------------------------------------------------------


def _recorded_pages(corpus_dir: Path) -> list[tuple[str, str]]:
    return [(entry["url"], text) for entry, text in recorded_publisher_pages(corpus_dir)]


@pytest.mark.slow  # soupsieve's own walk for every selector of every page: the reference is the slow part
def test_the_built_in_selectors_on_the_recorded_pages(corpus_dir: Path) -> None:
    """Every page's block markers, platform fingerprints and hidden parts, and the selectors of the page's rule (by
    its address, else its platform), before and after the scraping's hidden parts are taken out."""
    rules = builtin_rules()
    common = [compile_selector(css).compiled for _name, css, _title in (*_CHALLENGES, *_SIGNS) if css]
    common += [rule.recognise.compiled for rule in rules.sites.values() if rule.recognise and rule.recognise.css]
    common.append(_not_shown().compiled)
    pages = _recorded_pages(corpus_dir)
    assert len(pages) > 80
    through_lxml = 0
    for url, html in pages:
        built = page_from_text(html)
        if built is None:
            continue
        soup, index = built
        through_lxml += index._lxml is not None
        for compiled in common:
            assert index.select_one(compiled) is compiled.select_one(soup), (url, compiled.pattern)
        rule = rules.journal_rule(url) or rules.recognise(soup, index)
        if rule is None:
            continue
        selectors = [s.compiled for s in rule.selectors.values() if s is not None and s.css]
        for hidden in _not_shown().select(soup, index):
            index.remove(hidden)
        for compiled in [*selectors, *common]:
            assert [id(t) for t in index.select(compiled)] == [id(t) for t in compiled.select(soup)], (url, compiled)
    assert through_lxml > 70
