"""Rule selectors: jsoup's extensions translated to soupsieve's CSS, compiled once, and the empty selector that
forces an empty field."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from pubfetch.rules.selectors import Selector, compile_selector, translate_jsoup


@pytest.mark.parametrize(("jsoup", "css"), [
    ("td:containsOwn(License:) + td", 'td:-soup-contains-own("License:") + td'),
    ("p:contains(Keywords)", 'p:-soup-contains("Keywords")'),
    ("li:eq(0)", "li:nth-child(1)"),
    ("li:lt(2)", "li:nth-child(-n+2)"),
    ("li:gt(1)", "li:nth-child(n+3)"),
    ("div:not(:containsOwn(a \"b\"))", 'div:not(:-soup-contains-own("a \\"b\\""))'),
    ("a[title=':contains(x)']", "a[title=':contains(x)']"),
    ("a[data-x=\":eq(1)\"] > b", "a[data-x=\":eq(1)\"] > b"),
    ("h2:has(+ p)", "h2:has(+ p)"),
])  # fmt: skip
def test_translate_jsoup(jsoup: str, css: str) -> None:
    assert translate_jsoup(jsoup) == css
    compile_selector(jsoup)  # and the result compiles


def test_translated_selectors_select_like_jsoup() -> None:
    soup = BeautifulSoup("<table><tr><td>License:</td><td>MIT</td></tr></table><ul><li>a</li><li>b</li><li>c</li></ul>",
                         "lxml")
    assert [t.text for t in compile_selector("td:containsOwn(License:) + td").select(soup)] == ["MIT"]
    assert [t.text for t in compile_selector("li:eq(1)").select(soup)] == ["b"]
    assert [t.text for t in compile_selector("li:lt(2)").select(soup)] == ["a", "b"]
    assert [t.text for t in compile_selector("li:gt(0)").select(soup)] == ["b", "c"]


def test_translate_jsoup_rejects_regex_pseudo_classes_and_unclosed_parentheses() -> None:
    for selector in ("p:matchesOwn(^x$)", "div:has(p:containsData(x))"):
        with pytest.raises(ValueError, match="not supported"):
            translate_jsoup(selector)
    with pytest.raises(ValueError, match="invalid CSS selector"):
        compile_selector("p:matchText")
    with pytest.raises(ValueError, match="unclosed parenthesis"):
        translate_jsoup("p:containsOwn(abc")


def test_empty_selector_selects_nothing() -> None:
    selector = compile_selector("   ")
    soup = BeautifulSoup("<p>x</p>", "lxml")
    assert selector.empty
    assert selector.select(soup) == []
    assert selector.select_one(soup) is None


def test_lazy_selector_is_translated_now_and_compiled_on_first_use() -> None:
    selector = compile_selector("li:eq(1)", lazy=True)
    assert selector == Selector("li:eq(1)", "li:nth-child(2)")
    soup = BeautifulSoup("<ul><li>a</li><li>b</li></ul>", "lxml")
    assert selector.select_one(soup).text == "b"
    assert selector.compiled is selector.compiled  # compiled once, then kept


def test_bad_lazy_selector_is_still_refused_when_its_pseudo_class_is_unsupported() -> None:
    with pytest.raises(ValueError, match="not supported"):
        compile_selector("p:matches(x)", lazy=True)


def test_invalid_selector_message_does_not_quote_the_selector() -> None:
    with pytest.raises(ValueError) as info:
        compile_selector("div[secret-token-123")
    assert "secret-token-123" not in str(info.value)
