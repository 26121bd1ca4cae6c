"""The text of JATS elements on one line as PubFetcher read it: whitespace collapsed, a space at block edges and none
at inline markup, formulas' TeX left out, and the small helpers that select elements and attributes."""

from __future__ import annotations

from lxml import etree

from pubfetch.extract.jats_text import attr, element_text, elements, first_text, texts
from pubfetch.extract.xmlsafe import parse_xml


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


def test_texts_first_text_elements_and_attr() -> None:
    root = parse_xml('<kwd-group KWD-type=" Author "><kwd> </kwd><kwd>marsh</kwd><kwd>sediment</kwd></kwd-group>')
    kwds = elements(root, "kwd")
    assert texts(kwds) == ["marsh", "sediment"]
    assert first_text(kwds) == "marsh"
    assert first_text([]) == ""
    assert elements(root, "kwd/text()") == []
    assert (attr(root, "KWD-type"), attr(root, "absent")) == ("author", "")
