"""What a reader does not see: hidden elements are recognised, and hidden menus that are only links are removed
while hidden text and visible menus stay."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from pubfetch.extract.visible import drop_hidden_menus, is_hidden, is_link_list


def first(html: str) -> object:
    return BeautifulSoup(html, "html.parser").find()


@pytest.mark.parametrize("html", ['<div style="DISPLAY : none">x</div>', "<div hidden>x</div>",
                                  '<div aria-hidden="true">x</div>'])
def test_hidden_elements(html: str) -> None:
    assert is_hidden(first(html))


@pytest.mark.parametrize("html", ['<div style="display:block">x</div>', '<div aria-hidden="false">x</div>',
                                  "<div>x</div>"])
def test_visible_elements(html: str) -> None:
    assert not is_hidden(first(html))


def test_a_list_of_links_only_is_a_link_list() -> None:
    assert is_link_list(first('<ul><li><a href="#a">Abstract</a></li><li> <a href="#r">References</a> </li></ul>'))


@pytest.mark.parametrize("html", ["<ul><li><a href='#a'>Abstract</a></li><li>Plain item</li></ul>", "<ol></ol>",
                                  "<div><a href='#a'>Abstract</a></div>"])
def test_lists_with_text_empty_lists_and_other_elements_are_not_link_lists(html: str) -> None:
    assert not is_link_list(first(html))


def test_only_hidden_menus_of_links_are_dropped() -> None:
    soup = BeautifulSoup(
        "<div><ul style='display:none'><li><a href='#a'>Top of Page</a></li><li><a href='#b'>Abstract</a></li></ul>"
        "<ul style='display:none'><li>A hidden tab of text</li></ul>"
        "<ul><li><a href='#c'>Visible menu</a></li></ul><p>Body text.</p></div>", "html.parser")
    drop_hidden_menus(soup.div)
    assert soup.get_text(" ", strip=True) == "A hidden tab of text Visible menu Body text."
