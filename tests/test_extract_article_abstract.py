"""The abstract of an article page no rule reads: found by the page's own structure (heading, class, id, role,
itemprop), structured labels kept, other papers' abstracts and graphical abstracts ignored; and a meta description
recognised as a truncation of the visible abstract."""

from __future__ import annotations

import pytest

from pubfetch.extract.article_abstract import (
    MAX_ABSTRACT,
    MIN_ABSTRACT,
    find_abstract,
    gives_way,
    is_truncation,
)
from pubfetch.extract.clean import parse_html
from pubfetch.extract.html_text import format_text
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


# --------------------------------------------------------------------------------------- boundaries (issue 32)

REFERENCES = ("<ol>" + "".join(f"<li>Author{i} A, Other B, et al. ({2000 + i}) A study of marshes. Coastal Journal {i}:"
                               f"{10 * i}-{10 * i + 9}.</li>" for i in range(1, 7)) + "</ol>")


@pytest.mark.parametrize("furniture", [
    '<div class="graphical-abstract"><h3>Graphical abstract</h3><a href="/fig.png"><img src="/toc.gif"></a></div>',
    '<div class="visual-abstract"><p>Visual Abstract: a drawing of a marsh with sediment arrows and tide gauges, '
    'showing elevation change at forty sites along three estuaries.</p></div>',
    '<a class="toc-link" href="/toc.png"><img src="/toc.gif" alt="">View larger image</a>',
    '<div class="highlights"><h3>Highlights</h3><ul><li>Sediment decides marsh fate at forty sites studied.</li>'
    '<li>Vegetation height matters less than sediment supply.</li></ul></div>',
    '<section><h3>Author summary</h3><p>Marshes protect coasts. We found that the mud rivers carry decides whether '
    'they keep up with the sea, which matters to everyone living behind them.</p></section>',
    '<p class="keywords">Keywords: salt marsh; sediment; sea level; accretion; estuary; vegetation</p>',
    '<ul role="tablist"><li role="tab">Abstract</li><li role="tab">Figures</li><li role="tab">References</li></ul>',
    '<div class="comments"><h3>Comments</h3><p>Be the first to comment on this article. Sign in to post a comment '
    'about the marshes.</p><form><textarea></textarea><button>Post</button></form></div>',
])  # fmt: skip
def test_parts_inside_an_abstract_block_that_are_not_the_abstract_are_left_out(furniture: str) -> None:
    """A box, link, list, summary, keywords line, tab bar or widget inside the abstract block, before or after the
    text, is not part of the abstract."""
    for block in (f'<div class="abstract"><h2>Abstract</h2>{furniture}<p>{ABSTRACT}</p></div>',
                  f'<div class="abstract"><h2>Abstract</h2><p>{ABSTRACT}</p>{furniture}</div>'):
        assert find_abstract(parse_html(article_page(abstract_block=block))) == ABSTRACT


def test_an_author_summary_after_an_abstract_heading_is_not_appended() -> None:
    block = (f"<h2>Abstract</h2><p>{ABSTRACT}</p><h3>Author Summary</h3><p>Marshes protect coasts, and the mud rivers "
             "carry decides whether they keep up with the rising sea.</p>")
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ABSTRACT


def test_the_innermost_block_of_an_abstracts_size_wins_over_its_wrapper() -> None:
    """A wrapper named after the abstract that also holds the page header, authors and links gives way to the one
    abstract block inside it."""
    block = ('<div id="abstract-wrapper"><div class="header"><span>Journal of Coastal Things, volume 4</span>'
             '<p>Ana Ramos, Li Wei, Sam Okafor and the Coastal Marsh Consortium of the Three Estuaries</p>'
             '<p>Department of Estuarine Studies, University of Saltby, Saltby, United Kingdom; Department of '
             "Geography, University of Tideford</p></div>"
             f'<div class="abstract-text"><p>{ABSTRACT}</p></div><p>Received 3 May 2014; accepted 9 June 2014; '
             "published online 1 July 2014. Cite this article as Ramos et al.</p></div>")
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ABSTRACT


def test_a_structured_abstracts_sections_keep_their_wrapper() -> None:
    block = (f'<div class="abstract"><div class="abstract-sec"><h3>Background</h3><p>{ABSTRACT[:170]}</p></div>'
             f'<div class="abstract-sec"><h3>Methods</h3><p>{ABSTRACT[170:]}</p></div></div>')
    text = find_abstract(parse_html(article_page(abstract_block=block)))
    assert text.startswith("Background") and "\nMethods\n" in text


@pytest.mark.parametrize("block", [
    f'<div class="abstract"><h2>Abstract</h2>{REFERENCES}</div>',
    '<div class="abstract"><ul>' + "".join(f"<li>{m}</li>" for m in (
        "Home", "Current issue", "Archive", "For authors", "About the journal", "Editorial board", "Contact us",
        "Subscribe to alerts", "Advertising", "Permissions and reprints", "Open access policy", "Peer review process",
        "Indexing and abstracting", "Article processing charges", "Special issues", "Conference proceedings")) +
    "</ul><p>Browse the journal.</p></div>",
])  # fmt: skip
def test_a_reference_list_or_a_menu_is_not_an_abstract(block: str) -> None:
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ""


@pytest.mark.parametrize("block", [
    f"<div><span>Abstract</span> {ABSTRACT}<br></div>",  # loose text after a span label
    f'<div><span class="label">Abstract</span><sup>1</sup> <a href="#n1">[Note]</a> {ABSTRACT}</div>',
    f'<p><b>Abstract</b> <a href="/plain">[Plain Text Version]</a></p><p>{ABSTRACT}</p>',
    f'<section aria-labelledby="abs"><h2 class="u-visually-hidden" id="abs">Abstract</h2></section>'
    f'<div class="standfirst"><p>{ABSTRACT}</p></div>',
])  # fmt: skip
def test_label_following_reaches_the_abstract(block: str) -> None:
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ABSTRACT


def test_a_navigation_entry_named_abstract_is_not_its_label() -> None:
    menu = ('<ul class="jump"><li><span>Abstract</span></li></ul>'
            f"<p>{ABSTRACT.replace('Salt marshes', 'Tidal flats')}</p>")
    block = f'{menu}<h2>Abstract</h2><p>{ABSTRACT}</p>'
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ABSTRACT


@pytest.mark.parametrize("hiding", ['style="display: none"', "hidden", 'aria-hidden="true"'])
def test_a_shown_abstract_beats_a_hidden_one(hiding: str) -> None:
    other = ABSTRACT.replace("Salt marshes", "Tidal flats")
    block = f'<div class="abstract" {hiding}><p>{other}</p></div><div class="abstract-text"><p>{ABSTRACT}</p></div>'
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ABSTRACT
    tabs = f'<div class="tab-panel" {hiding}><h2>Abstract</h2><p>{ABSTRACT}</p></div>'  # nothing shown fits
    assert find_abstract(parse_html(article_page(abstract_block=tabs))) == ABSTRACT


def test_a_keywords_block_inside_the_abstract_is_left_out_whatever_its_markup() -> None:
    """PMC's legacy pages: ``<div class="sec"><strong class="kwd-title">Keywords: </strong><span>...``."""
    block = (f'<div class="abstract"><h2>Abstract</h2><p>{ABSTRACT}</p><div class="sec"><strong class="kwd-title">'
             'Keywords: </strong><span class="kwd-text">Amygdala, salt marsh, sediment</span></div></div>')
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ABSTRACT


def test_a_meta_description_does_not_give_way_to_a_reference_list() -> None:
    """A page whose "abstract" is a reference list keeps its meta description, the correct abstract."""
    references = format_text(parse_html(REFERENCES).find("ol"))
    assert gives_way(ABSTRACT[:160], ABSTRACT)  # a truncation of a real abstract gives way
    assert not gives_way(ABSTRACT, references)


def test_a_wrapper_holding_the_header_and_authors_before_the_abstract_label_gives_what_follows_the_label() -> None:
    """A 2014 layout: the only element named after the abstract wraps the article's header, its authors and dates,
    then the "Abstract" heading and the text."""
    block = ('<div id="abstract-box"><div class="header"><p>Letter | Published 1 July 2014</p><p>Ana Ramos, Li Wei, '
             "Sam Okafor and the Coastal Marsh Consortium of the Three Estuaries, Department of Estuarine Studies, "
             f"University of Saltby</p></div><h2>Abstract</h2><p>{ABSTRACT}</p></div>")
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ABSTRACT


def test_a_whole_tab_with_acknowledgements_key_topics_and_comments_gives_only_its_abstract() -> None:
    block = (f'<div id="abstract" class="tab-pane"><h2>Abstract</h2><p>{ABSTRACT}</p><h2>Acknowledgements</h2>'
             '<p>We thank the harbour master for access.</p><div class="key-topics"><span>Key Topics</span><a>Marshes'
             '</a><a>Sediment</a></div><div id="disqus_thread"><p>Add a comment about this article.</p></div></div>')
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ABSTRACT


def test_the_articles_dates_after_the_abstract_under_its_heading_are_left_out() -> None:
    """Cambridge Journals Online (2016): "Abstract", the paragraphs, then "(Received ...)" lines as siblings."""
    block = (f'<div class="description-box"><h3>Abstract</h3><p>{ABSTRACT}</p>'
             '<p class="Dates">(Received December 10 2015)</p><p class="Dates">(Accepted March 12 2016)</p></div>')
    assert find_abstract(parse_html(article_page(abstract_block=block))) == ABSTRACT
