"""The keyword tests of page cleaning: an id, class, role or aria-label value is split into tokens, and each whole token
is tested as a menu (always removed), a maybe-box (removed where no main content is around) or, for publications, a
reference list; a whole attribute is tested as one word."""

from __future__ import annotations

import pytest

from pubfetch.extract.clean_keywords import (
    MAIN_WORDS,
    TITLE_WORDS,
    is_always_token,
    is_maybe_token,
    is_publication_token,
    is_word_attr,
    tokenize,
)


@pytest.mark.parametrize(
    ("value", "tokens"),
    [
        ("mainNavBar2", ["main", "nav", "bar", "2"]),
        (" site_header--top ", ["site", "header", "top"]),
        ("h2Title", ["h", "2", "title"]),
        ("ABCDef", ["abcdef"]),  # no lower-to-upper boundary
        ("menu\u00a0bar\tx", ["menu", "bar", "x"]),
        ("ÄrgerNav", ["Ärger", "nav"]),  # Unicode letters split, only ASCII lowercased
        (["nav", "nav-tabs"], ["nav", "nav", "tabs"]),  # BeautifulSoup's class list
        ("", []),
        (None, []),
    ],
)
def test_tokenize(value: str | list[str] | None, tokens: list[str]) -> None:
    assert tokenize(value) == tokens


def test_keyword_groups() -> None:
    always = [
        "nav",
        "navigation",
        "navbar",
        "breadcrumbs",
        "topnav",
        "mynav",
        "navlinks",
        "subnavigation",
        "menubar",
        "footer",
    ]
    maybe = ["sidebar", "tabs", "socialmedia", "linklist", "pagetabs", "hidden", "skip", "navy", "menus", "searchbar"]
    neither = ["searchbox", "content", "footers", "header", "main", "top", "banner"]
    assert [t for t in always if not is_always_token(t)] == []
    assert [t for t in maybe if is_always_token(t) or not is_maybe_token(t)] == []
    assert [t for t in neither if is_always_token(t) or is_maybe_token(t)] == []
    publication = ["ref", "refs", "reflist", "xref", "references", "preferences", "relatedarticles", "seealsorelated"]
    assert [t for t in publication if not is_publication_token(t)] == []
    assert [t for t in ("preface", "bibliography", "unrelatedness", "re") if is_publication_token(t)] == []


@pytest.mark.parametrize("value", ["main", "  MainContent ", "#content1", "article", "_contents_"])
def test_a_whole_attribute_spelling_one_main_word_is_main(value: str) -> None:
    assert is_word_attr(value, MAIN_WORDS)


@pytest.mark.parametrize("value", ["main-content", "content area", "mainly", "", "123", "x" * 20])
def test_an_attribute_with_more_than_one_word_or_no_letters_is_not(value: str) -> None:
    assert not is_word_attr(value, MAIN_WORDS)


def test_title_words_are_tested_the_same_way() -> None:
    assert is_word_attr("Heading", TITLE_WORDS)
    assert not is_word_attr("subheading", TITLE_WORDS)
