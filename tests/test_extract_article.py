"""The generic article reader on pages no rule knows, written here in the shapes publishers use (not corpus pages): the
title from the meta tags before the page, the abstract in front of a body without references and acknowledgements,
with its heading structure; a landing page, a reference list or a teaser gives no body. The title and abstract finders
have files of their own (test_extract_article_title.py, test_extract_article_abstract.py).
"""

from __future__ import annotations

from pubfetch.extract.article import MIN_BODY, GenericArticle, cleaned_page, read_article
from pubfetch.extract.clean import parse_html
from pubfetch.extract.scrape import scrape_journal
from pubfetch.rules import ScrapingRules
from support.article_pages import ABSTRACT, SENTENCE, article_page


def read(html: str, meta_title: str = ""):
    return read_article(html, parse_html(html), "https://journal.example/article/1", meta_title)


# ----------------------------------------------------------------------------------------------------------- title


def test_meta_title_ranks_above_the_page_and_is_tidied() -> None:
    assert read(article_page(), meta_title="Sediment supply and marshes*").title == "Sediment supply and marshes"


def test_rule_title_loses_footnote_marks() -> None:
    rules = ScrapingRules()
    rules.add_journals("'journal\\.example/': example\n---\nexample:\n  title: 'h1'\n", "<test>")
    html = article_page(h1="Sediment supply controls marsh resilience<sup>\u2020</sup>")
    record = scrape_journal(html, "https://journal.example/article/1", rules.journal_rule("https://journal.example/a"))
    assert record.title == "Sediment supply controls marsh resilience"


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


def test_the_body_can_be_left_to_the_caller() -> None:
    article = read_article(page := article_page(abstract_block=f'<div class="abstract"><p>{ABSTRACT}</p></div>'),
                           parse_html(page), "https://journal.example/article/1", body=False)
    assert (article.title, article.abstract) == ("Sediment supply controls marsh resilience", ABSTRACT)
    assert (article.body, article.sections, article.body_source, article.fulltext) == ("", [], "", "")


def test_fulltext_is_title_abstract_and_body_and_nothing_without_a_body() -> None:
    assert GenericArticle(title="T", abstract="A", body="B").fulltext == "T\n\nA\n\nB"
    assert GenericArticle(title="T", body="B").fulltext == "T\n\nB"
    assert GenericArticle(title="T", abstract="A").fulltext == ""


def test_cleaned_page_is_the_description_and_the_cleaning_the_reader_already_did() -> None:
    html = ('<html><head><meta name="description" content="What the page says it is."></head>'
            "<body><p>Cleaned text.</p></body></html>")
    reused = GenericArticle(cleaned="The reader's cleaned body.")
    assert cleaned_page(parse_html(html), "https://journal.example/a", reused) == \
        "What the page says it is.\n\nThe reader's cleaned body."
    fresh = cleaned_page(parse_html(html), "https://journal.example/a", GenericArticle())
    assert fresh.startswith("What the page says it is.") and fresh.endswith("Cleaned text.")
