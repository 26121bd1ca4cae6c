"""The title of an article page no rule reads: the main ``<h1>`` read whole (a nested subtitle is part of it, footnote
marks are not), else the ``<title>`` without the site's name and boilerplate; every title loses trailing footnote
marks."""

from __future__ import annotations

import pytest

from pubfetch.extract.article_title import main_heading, tidy_title, title_from_page, title_without_boilerplate
from pubfetch.extract.clean import parse_html
from support.article_pages import article_page


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


def test_the_h1_whose_text_the_title_holds_is_the_main_heading() -> None:
    soup = parse_html("<html><body><div><h1>Latest news from us</h1></div><h1>Sediment and marshes</h1></body></html>")
    assert main_heading(soup, "Sediment and marshes | Coastal Things") == "Sediment and marshes"
    assert main_heading(soup) == "Latest news from us"


def test_an_h1_in_the_main_content_wins_over_one_outside_it() -> None:
    soup = parse_html("<html><body><div><h1>Site wide banner</h1></div><article><h1>Sediment and marshes</h1>"
                      "</article></body></html>")
    assert main_heading(soup) == "Sediment and marshes"


def test_headings_in_page_chrome_or_of_one_word_are_no_title() -> None:
    soup = parse_html("<html><body><header><h1>Coastal Things Journal</h1></header><h1>Article</h1>"
                      "<footer><h1>Contact the publisher</h1></footer></body></html>")
    assert main_heading(soup) == ""


def test_without_a_heading_the_title_tag_loses_its_site_name() -> None:
    soup = parse_html("<html><head><title>Marsh soils store carbon - Coastal Things</title></head><body><p>x</p>"
                      "</body></html>")
    assert title_from_page(soup, "https://coastalthings.example/a/1") == "Marsh soils store carbon"


def test_a_title_of_one_segment_is_only_tidied() -> None:
    assert title_without_boilerplate("  Marsh soils\u00a0store carbon* ") == "Marsh soils store carbon"


@pytest.mark.parametrize("hiding", ['style="display:none"', "hidden", 'aria-hidden="true"'])
def test_a_shown_h1_beats_a_hidden_one(hiding: str) -> None:
    page = (f'<html><body><main><h1 {hiding}>Sign in to read the article</h1><h1>Tidal sediment controls marshes</h1>'
            "</main></body></html>")
    assert main_heading(parse_html(page)) == "Tidal sediment controls marshes"
    only_hidden = f"<html><body><main><h1 {hiding}>Tidal sediment controls marshes</h1></main></body></html>"
    assert main_heading(parse_html(only_hidden)) == "Tidal sediment controls marshes"
