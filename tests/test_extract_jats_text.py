"""The texts of one article's elements read through ArticleTexts (one walk per subtree asked for, shared) are the texts
element_text gives each element alone, whatever order they are asked in."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from pubfetch.extract.jats_text import ArticleTexts, ElementTexts, element_text
from pubfetch.extract.xmlsafe import parse_xml
from support.mutations import mutated

DOCS = Path(__file__).parent / "data" / "documents"

# block and inline markup, MathML beside tex-math (left out with its content, its tail kept), nested tex-math, an
# unresolved entity reference, whitespace of every kind jsoup collapses and some it keeps, invisible characters
ODD_ARTICLE = b"""<?xml version="1.0"?>
<!DOCTYPE article [<!ENTITY ent "expanded">]>
<article xmlns:mml="http://www.w3.org/1998/Math/MathML">
 <front><article-meta><title-group><article-title>A <italic>fly</italic>&#x200b;model<sup>2</sup></article-title>
 </title-group></article-meta></front>
 <body><sec><title>Intro</title><p>Text&#xa0;with&#x2009;thin space, &ent; and
 <disp-formula><tex-math>\\alpha<b>x</b></tex-math><mml:math><mml:mi>&#x3b1;</mml:mi></mml:math></disp-formula>tail
 <list><list-item><p>one</p></list-item><list-item><p>two&#xad;parts</p></list-item></list></p>
 <table-wrap><label>Table 1</label><caption><p>Cap</p></caption><table><tr><td>a</td><td>b</td></tr></table>
 </table-wrap></sec></body>
</article>"""


def _documents() -> list[etree._Element]:
    return [parse_xml(ODD_ARTICLE), parse_xml((DOCS / "jats_article.xml").read_bytes()),
            parse_xml((DOCS / "pmc_articleset.xml").read_bytes())]


def _elements(root: etree._Element) -> list[etree._Element]:
    return [el for el in root.iter() if isinstance(el.tag, str)]


@pytest.mark.parametrize("order", ["document", "reversed", "outermost first"])
def test_texts_are_element_text_in_any_order(order: str) -> None:
    for root in _documents():
        els = _elements(root)
        asked = {"document": els, "reversed": els[::-1], "outermost first": sorted(els, key=_depth)}[order]
        texts = ArticleTexts()
        got = {el: texts.of(el) for el in asked}
        assert [got[el] for el in els] == [element_text(el) for el in els]
        assert texts.of(root) == element_text(root)  # asked again: the same text


def _depth(el: etree._Element) -> int:
    return sum(1 for _ in el.iterancestors())


def test_the_odd_article_reads_as_jsoup_would() -> None:
    root = parse_xml(ODD_ARTICLE)
    texts = ArticleTexts()
    (p,) = [el for el in root.iter("p") if el.getparent().tag == "sec"]
    assert texts.of(p) == ("Text with\u2009thin space, and \u03b1 tail one twoparts")
    assert texts.of(root.find(".//article-title")) == "A flymodel2"
    assert texts.of(root.find(".//tex-math")) == element_text(root.find(".//tex-math")) == "\\alphax"


def test_skip_and_absent_elements_read_as_element_text() -> None:
    root = parse_xml((DOCS / "jats_article.xml").read_bytes())
    texts = ArticleTexts()
    for el in _elements(root):
        texts.of(el)
        assert texts.of(el, skip=("label", "sup")) == element_text(el, skip=("label", "sup"))
    assert texts.of(None) == "" == ElementTexts().of(None)


def test_all_and_first_leave_out_empty_texts() -> None:
    root = etree.fromstring(b"<a><b> </b><c>x <i>y</i></c><d/><e>z</e></a>")
    for texts in (ArticleTexts(), ElementTexts()):
        assert texts.all(root) == ["x y", "z"]
        assert texts.first(root) == "x y"
        assert texts.first([root[0], root[2]]) == ""


def test_corpus_full_texts_read_as_element_text(corpus_dir: Path) -> None:
    bodies = sorted((corpus_dir / "files" / "europepmc_fulltext").glob("*.xml"))
    assert bodies
    for body in bodies:
        root = parse_xml(body.read_bytes())
        els = _elements(root)
        texts = ArticleTexts()
        assert [texts.of(el) for el in els[::-1]] == [element_text(el) for el in els[::-1]]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(lambda: [ODD_ARTICLE, (DOCS / "jats_article.xml").read_bytes()]), st.randoms(use_true_random=False))
def test_mutated_documents_read_as_element_text(data: bytes, rnd: random.Random) -> None:
    try:
        root = parse_xml(data)
    except ValueError:
        return
    els = _elements(root)
    rnd.shuffle(els)
    texts = ArticleTexts()
    assert [texts.of(el) for el in els] == [element_text(el) for el in els]
