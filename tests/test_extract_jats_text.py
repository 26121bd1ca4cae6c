"""The text of JATS elements on one line as PubFetcher read it: whitespace collapsed, a space at block edges and none
at inline markup, formulas' TeX left out, and the small helpers that select elements and attributes; and the texts of
one article's elements read through ArticleTexts (one walk per subtree asked for, shared), which are the texts
element_text gives each element alone, whatever order they are asked in."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from pubfetch.extract.jats_text import ArticleTexts, ElementTexts, attr, element_text, elements, first_text, texts
from pubfetch.extract.xmlsafe import parse_xml
from support.mutations import mutated

DOCS = Path(__file__).parent / "data" / "documents"


def test_block_elements_are_separated_and_inline_markup_is_not() -> None:
    el = parse_xml("<table-wrap><label>Table 1</label><caption><p>Rates of <italic>E. coli</italic> growth"
                   "<sup>a</sup></p></caption></table-wrap>")
    assert element_text(el) == "Table 1 Rates of E. coli growtha"


def test_whitespace_runs_collapse_and_invisible_characters_vanish() -> None:
    assert element_text(parse_xml("<p>  one\n\t two\u00a0three  soft\u00adhyphen zero\u200bwidth </p>")) == \
        "one two three softhyphen zerowidth"


def test_tex_math_is_left_out_and_the_text_after_it_kept() -> None:
    el = parse_xml("<p>where <disp-formula><tex-math>\\alpha</tex-math></disp-formula> holds</p>")
    assert element_text(el) == "where holds"


def test_mathml_is_inline() -> None:
    el = parse_xml('<p>x<mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"><mml:mi>n</mml:mi>'
                   "</mml:math>y</p>")
    assert element_text(el) == "xny"


def test_skipped_elements_lose_their_text_but_keep_their_tail() -> None:
    el = parse_xml("<ref><label>12</label>Smith J. A study.</ref>")
    assert element_text(el, skip=("label",)) == "Smith J. A study."
    assert element_text(el) == "12 Smith J. A study."


def test_address_parts_read_inline() -> None:
    el = parse_xml("<aff><institution>Univ X</institution>, <city>Tartu</city>, <country>Estonia</country></aff>")
    assert element_text(el) == "Univ X, Tartu, Estonia"


def test_no_element_has_no_text() -> None:
    assert element_text(None) == ""


def test_nesting_deeper_than_recursion_allows_is_read() -> None:
    root = node = etree.Element("sec")
    for _ in range(5000):  # built in memory: the XML parser itself refuses documents this deep
        node = etree.SubElement(node, "sec")
    node.text = "deep"
    assert element_text(root) == "deep"
    assert ArticleTexts().of(root) == "deep"


def test_texts_first_text_elements_and_attr() -> None:
    root = parse_xml('<kwd-group KWD-type=" Author "><kwd> </kwd><kwd>marsh</kwd><kwd>sediment</kwd></kwd-group>')
    kwds = elements(root, "kwd")
    assert texts(kwds) == ["marsh", "sediment"]
    assert first_text(kwds) == "marsh"
    assert first_text([]) == ""
    assert elements(root, "kwd/text()") == []
    assert (attr(root, "KWD-type"), attr(root, "absent")) == ("author", "")


# ------------------------------------------------------------------------------------------ ArticleTexts

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
    for reader in (ArticleTexts(), ElementTexts()):
        assert reader.all(root) == ["x y", "z"]
        assert reader.first(root) == "x y"
        assert reader.first([root[0], root[2]]) == ""


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
