"""Where an abstract ends: the parts of an abstract block that are not the abstract, and whether a text reads as an
abstract (not a reference list, not a menu)."""

from __future__ import annotations

from pubfetch.extract.abstract_bounds import block_text, in_other_part, is_furniture, reads_as_abstract
from pubfetch.extract.clean import parse_html
from support.article_pages import ABSTRACT


def test_block_text_leaves_out_other_parts_and_keeps_marked_words() -> None:
    block = parse_html(
        f'<div id="b"><p>{ABSTRACT.replace("sediment", "<span class=single_highlight_class>sediment</span>", 1)}</p>'
        '<h3>Author summary</h3><p>Marshes protect coasts.</p><h3>Keywords</h3><p>marsh; sediment</p>'
        '<div class="figure"><img src="/g.png"><p>Graphical abstract</p></div></div>').find(id="b")
    assert block_text(block) == ABSTRACT  # the highlighted search term is text; the summary, keywords, figure are not
    assert not is_furniture(block.find("span"))


def test_prose_reads_as_an_abstract_a_reference_list_and_a_menu_do_not() -> None:
    assert reads_as_abstract(ABSTRACT)
    assert reads_as_abstract("Background\n\n" + ABSTRACT + "\n\nConclusions\n\nSediment decides.")
    references = "\n".join(f"{i}. Smith J, Jones K, et al. ({1990 + i}) Marshes. Coastal J {i}:{i}1-{i}9."
                           for i in range(1, 6))
    assert not reads_as_abstract(references)
    assert not reads_as_abstract("Home\nCurrent issue\nArchive\nFor authors\nAbout the journal\nContact us")


def test_an_abstract_whose_paragraphs_hold_years_and_ranges_reads_as_one() -> None:
    paragraphs = [f"Between 2010 and 2015 we sampled 12-18 cores at each of forty marshes (site {i}: 3-4 per season) "
                  "and dated them by lead-210, so that accretion rates over the last century could be set against "
                  "the tide gauge record of the same estuaries and the sediment loads of their rivers." for i in range(3)]
    assert reads_as_abstract("\n\n".join(paragraphs))


def test_a_class_that_negates_names_no_part() -> None:
    """nature.com's 2009-2014 template: the letter's summary sits in ``div.section.first.no-nav.no-title``."""
    block = parse_html('<div class="section first no-nav no-title"><p id="s">Summary.</p></div>').find(id="s")
    assert not in_other_part(block)
    assert in_other_part(parse_html('<div class="highlights"><p id="s">Point.</p></div>').find(id="s"))


def test_the_lines_of_the_articles_history_are_not_the_abstract() -> None:
    """Older layouts (Cambridge Journals Online of 2016) print the article's dates in the abstract's block."""
    block = parse_html(
        f'<div id="b"><p>{ABSTRACT}</p><p class="Dates">(Received December 10 2015)</p><p>(Revised February 25 2016)'
        '</p><div>Accepted: 12 March 2016</div><p>Published online 3 May 2016.</p></div>').find(id="b")
    assert block_text(block) == ABSTRACT


def test_an_abstract_paragraph_opening_with_a_history_word_stays() -> None:
    """'Received' opening a sentence of the abstract's own is text: only a short line that is a date goes."""
    text = ("Received wisdom holds that marshes drown as seas rise faster than 5 mm a year; we tested this in 2019 "
            "at forty sites.")
    block = parse_html(f'<div id="b"><p>{text}</p><p>{ABSTRACT}</p></div>').find(id="b")
    assert block_text(block) == text + "\n\n" + ABSTRACT
