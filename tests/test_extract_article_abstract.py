"""The abstract of an article page no rule reads: found by the page's own structure (heading, class, id, role,
itemprop), structured labels kept, other papers' abstracts and graphical abstracts ignored; and a meta description
recognised as a truncation of the visible abstract."""

from __future__ import annotations

import pytest

from pubfetch.extract.article_abstract import MAX_ABSTRACT, MIN_ABSTRACT, find_abstract, is_truncation
from pubfetch.extract.clean import parse_html
from support.article_pages import ABSTRACT, article_page


@pytest.mark.parametrize("block", [
    f'<section class="abstract"><h2>Abstract</h2><p>{ABSTRACT}</p></section>',
    f'<div id="articleAbstract"><p>{ABSTRACT}</p></div>',
    f'<div role="doc-abstract"><p>{ABSTRACT}</p></div>',
    f'<div itemprop="abstract"><p>{ABSTRACT}</p></div>',
    f'<h2>Summary</h2><p>{ABSTRACT}</p><h2>Introduction</h2><p>Not the abstract.</p>',
    f'<div class="hlFld-Abstract"><ul class="anchors"><li><ul style="display:none"><li><a href="#top">Top of Page</a>'
    f'</li><li><a href="#refs">References</a></li></ul></li></ul><h2>Abstract</h2><p>{ABSTRACT}</p></div>',
])  # fmt: skip
def test_abstract_found_by_the_pages_own_structure(block: str) -> None:
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ABSTRACT


def test_structured_abstract_keeps_its_labels() -> None:
    block = ('<div class="abstract"><h2>Abstract</h2><h3>Background</h3><p>' + ABSTRACT[:150] + '</p><h3>Methods</h3>'
             '<p>' + ABSTRACT[150:] + '</p></div>')
    text = find_abstract(parse_html(article_page(abstract_block=block)))
    assert " ".join(text.split()).startswith("Background Salt marshes keep pace")
    assert "\nMethods\n" in text


def test_other_papers_abstracts_are_not_taken() -> None:
    related = f'<aside><div class="related-articles"><div class="abstract"><p>{ABSTRACT}</p></div></div></aside>'
    assert find_abstract(parse_html(article_page(extra=related))) == ""


def test_graphical_abstract_and_keywords_are_not_the_abstract() -> None:
    block = (f'<div class="graphical-abstract"><p>{ABSTRACT}</p></div>'
             f'<div class="abstract-keywords"><p>{ABSTRACT}</p></div>')
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ""


@pytest.mark.parametrize(("description", "truncation"), [
    (ABSTRACT[:160] + "...", True),  # cut with an ellipsis
    (ABSTRACT[:200], True),  # a prefix
    (ABSTRACT.replace(". ", ".").replace("We measured", "We  measured"), True),  # the same, spaced differently
    (ABSTRACT[40:300] + "\u2026", True),  # starts inside the abstract
    ("A short blurb about marshes written for sharing on social media, not the abstract at all.", False),
    (ABSTRACT + " And a sentence the page does not show, so the description is longer than the abstract.", False),
])  # fmt: skip
def test_truncated_meta_description_is_recognised(description: str, truncation: bool) -> None:
    assert is_truncation(description, ABSTRACT) is truncation


def test_a_page_without_an_abstract_has_none() -> None:
    assert find_abstract(parse_html(article_page())) == ""


def test_a_block_too_short_or_too_long_for_an_abstract_is_not_one() -> None:
    short = "Salt marshes trap sediment."
    assert len(short) < MIN_ABSTRACT
    assert find_abstract(parse_html(article_page(abstract_block=f'<div class="abstract"><p>{short}</p></div>'))) == ""
    long = "Salt marshes trap sediment and build soil. " * (MAX_ABSTRACT // 20)
    assert find_abstract(parse_html(article_page(abstract_block=f'<div class="abstract"><p>{long}</p></div>'))) == ""
