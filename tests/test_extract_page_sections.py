"""The sections of an article body on a publisher page: one per heading, ranked by the heading levels the body uses,
each holding its paragraphs up to the next heading."""

from __future__ import annotations

from bs4 import BeautifulSoup

from pubfetch.extract.page_sections import page_sections, ranked_sections
from pubfetch.model.rich import Section


def sections_of(body: str) -> list[Section]:
    soup = BeautifulSoup(f"<html><body><div id='main'>{body}</div></body></html>", "html.parser")
    return page_sections(soup.select("#main"))


def test_headings_start_sections_ranked_among_the_levels_used() -> None:
    assert sections_of("<p>Lead text.</p><h2>Introduction</h2><p>One.</p><p>Two.</p><h3>Aims</h3><ul><li>A</li>"
                       "<li>B</li></ul><h2>Methods</h2><figure><figcaption>Fig 1.</figcaption></figure>") == [
        Section("Introduction", 1, "One.\n\nTwo."), Section("Aims", 2, "A\n\nB"), Section("Methods", 1, "Fig 1.")]


def test_a_body_without_headings_has_no_sections() -> None:
    assert sections_of("<p>Only prose.</p><p>More prose.</p>") == []


def test_an_empty_heading_starts_no_section_and_its_text_stays_with_the_last_one() -> None:
    assert sections_of("<h2>Results</h2><p>One.</p><h3><a href='#x'></a></h3><p>Two.</p>") == [
        Section("Results", 1, "One.\n\nTwo.")]


def test_a_paragraph_inside_another_is_read_once() -> None:
    assert sections_of("<h4>Discussion</h4><blockquote><p>Quoted.</p></blockquote>") == [
        Section("Discussion", 1, "Quoted.")]


def test_roots_inside_other_roots_are_read_once() -> None:
    soup = BeautifulSoup("<div class='b'><h2>T</h2><div class='b'><p>Text.</p></div></div>", "html.parser")
    assert page_sections(soup.select(".b")) == [Section("T", 1, "Text.")]


def test_ranked_sections_drop_text_before_any_heading_and_rank_levels() -> None:
    assert ranked_sections([(0, "", "lead"), (3, "A", "a"), (5, "B", "b"), (3, "", "untitled"), (3, "C", "c")]) == [
        Section("A", 1, "a"), Section("B", 2, "b"), Section("C", 1, "c")]
