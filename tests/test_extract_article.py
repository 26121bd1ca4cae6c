"""The generic article reader on pages no rule knows, written here in the shapes publishers use (not corpus pages): each
class of failure the reader exists for, and the way a fetch merges what it reads.

Title: boilerplate of <title> and footnote marks never reach the title; a page with an h1 and no title meta gets its
title; an h1's nested subtitle is kept. Abstract: found by heading, class, id, role, itemprop; structured labels kept;
other papers' abstracts ignored; a truncated meta description never wins over the visible abstract. Body: the
article's paragraphs without references and acknowledgements, with its heading structure; a landing page gives none.
"""

from __future__ import annotations

import pytest

from pubfetch.extract.article import MIN_BODY, read_article
from pubfetch.extract.article_abstract import find_abstract, is_truncation
from pubfetch.extract.article_title import tidy_title, title_from_page, title_without_boilerplate
from pubfetch.extract.clean import parse_html
from pubfetch.extract.scrape import scrape_journal
from pubfetch.rules import ScrapingRules

SENTENCE = ("Coastal wetlands store large amounts of carbon in their soils, and the rate at which they do so depends on "
            "the supply of sediment. We measured accretion at forty sites over six years. ")
ABSTRACT = ("Salt marshes keep pace with rising seas by trapping sediment and building organic soil. We measured surface "
            "elevation change at forty marsh sites along three estuaries between 2015 and 2021 and related it to "
            "suspended sediment, tidal range and vegetation. Marshes with high sediment supply gained elevation faster "
            "than local sea level rose, whereas sediment-starved marshes lost ground.")


def article_page(*, head: str = "", h1: str = "Sediment supply controls marsh resilience", abstract_block: str = "",
                 sections: int = 6, extra: str = "") -> str:
    body = "".join(f"<section><h2>Part {i}</h2><p>{SENTENCE * 3}</p><p>{SENTENCE * 2}</p></section>"
                   for i in range(sections))
    return f"""<html><head><title>Sediment supply controls marsh resilience | Journal of Coastal Things</title>{head}
    </head><body><header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>
    <main><article><h1>{h1}</h1>{abstract_block}<div class="body">{body}</div>
    <section><h2>Acknowledgements</h2><p>We thank the marsh owners for access to their land over many years.</p></section>
    <section><h2>References</h2><ol><li>Smith, J. (2010). Marshes. Coastal Journal 4, 1-10.</li>
    <li>Jones, K. (2012). More marshes. Coastal Journal 6, 11-20.</li></ol></section>{extra}</article></main>
    <footer>Copyright the publisher</footer></body></html>"""


def read(html: str, meta_title: str = ""):
    return read_article(html, parse_html(html), "https://journal.example/article/1", meta_title)


# ----------------------------------------------------------------------------------------------------------- title


@pytest.mark.parametrize(("raw", "title"), [
    ("Welcome to Coastal Things: Sediment supply controls marsh resilience", "Sediment supply controls marsh resilience"),
    ("IEEE Xplore Full-Text HTML : Sediment supply controls marsh resilience", "Sediment supply controls marsh resilience"),
    ("Sediment supply controls marsh resilience | Journal of Coastal Things", "Sediment supply controls marsh resilience"),
    ("Coastal Things FullTextHTML page - Sediment supply controls marsh resilience",
     "Sediment supply controls marsh resilience"),
    ("Marshes: a subtitle after a colon stays", "Marshes: a subtitle after a colon stays"),
])  # fmt: skip
def test_title_tag_loses_the_sites_boilerplate(raw: str, title: str) -> None:
    assert title_without_boilerplate(raw, "https://coastalthings.example/a/1", ("Coastal Things",)) == title


@pytest.mark.parametrize(("raw", "title"), [
    ("Sediment supply controls marsh resilience\u2020", "Sediment supply controls marsh resilience"),
    ("Sediment supply controls marsh resilience *", "Sediment supply controls marsh resilience"),
    ("Sediment supply controls marsh resilience\u2021,1", "Sediment supply controls marsh resilience"),
    ("  Sediment   supply\n controls marsh resilience ", "Sediment supply controls marsh resilience"),
])  # fmt: skip
def test_footnote_marks_never_end_a_title(raw: str, title: str) -> None:
    assert tidy_title(raw) == title


def test_page_with_an_h1_and_no_title_meta_gets_the_h1_whole() -> None:
    html = article_page(h1='Sediment supply controls marsh resilience<sup><a href="#fn1">1</a></sup>'
                           '<span class="subtitle">: evidence from forty sites</span><sup>\u2020</sup>')
    assert title_from_page(parse_html(html)) == "Sediment supply controls marsh resilience: evidence from forty sites"


def test_sup_inside_a_title_stays() -> None:
    html = article_page(h1="The <sup>13</sup>C signature of marsh soils")
    assert title_from_page(parse_html(html)) == "The 13C signature of marsh soils"


def test_meta_title_ranks_above_the_page_and_is_tidied() -> None:
    assert read(article_page(), meta_title="Sediment supply and marshes*").title == "Sediment supply and marshes"


def test_rule_title_loses_footnote_marks() -> None:
    rules = ScrapingRules()
    rules.add_journals("'journal\\.example/': example\n---\nexample:\n  title: 'h1'\n", "<test>")
    html = article_page(h1="Sediment supply controls marsh resilience<sup>\u2020</sup>")
    record = scrape_journal(html, "https://journal.example/article/1", rules.journal_rule("https://journal.example/a"))
    assert record.title == "Sediment supply controls marsh resilience"


# -------------------------------------------------------------------------------------------------------- abstract


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


# ------------------------------------------------------------------------------------------------------------ body


def test_body_without_back_matter_and_with_its_sections() -> None:
    article = read(article_page(abstract_block=f'<section class="abstract"><h2>Abstract</h2><p>{ABSTRACT}</p>'
                                               '</section>'))
    assert article.body_source == "trafilatura"
    assert article.abstract == ABSTRACT
    assert "We thank the marsh owners" not in article.body
    assert "Smith, J. (2010)" not in article.body
    assert ABSTRACT[:60] not in article.body
    assert [(s.title, s.level) for s in article.sections] == [(f"Part {i}", 2) for i in range(6)]
    assert article.fulltext.startswith(f"{article.title}\n\n{ABSTRACT}\n\nPart 0\n\n")


def test_landing_page_gives_no_body() -> None:
    html = article_page(abstract_block=f'<div class="abstract"><p>{ABSTRACT}</p></div>', sections=0,
                        extra="<p>Buy this article for 39.95 USD. Sign in through your institution.</p>")
    article = read(html)
    assert (article.abstract, article.body, article.fulltext) == (ABSTRACT, "", "")


def test_reference_list_alone_is_no_body() -> None:
    refs = "".join(f"<li>Author{i}, A. B., and Other, C., A title of a paper number {i} about marshes and their "
                   f"sediments,Journal of Coastal Things {i}, 19{i:02d}, {i}1–{i}9.</li>" for i in range(40))
    article = read(article_page(sections=0, extra=f"<section><h2>Cited works</h2><ol>{refs}</ol></section>"))
    assert article.body == ""


def test_short_text_below_the_threshold_is_no_body() -> None:
    """Two paragraphs of running text are a teaser or a news item's summary, not an article's body."""
    article = read(article_page(sections=1))
    assert len("".join(SENTENCE.split())) * 5 < MIN_BODY
    assert article.body == ""
