"""A journal site's rule answers for any key of the rule file: its selectors, its URL rewrites' two halves and the
browser's ready selector, and refuses a key that names no selector."""

from __future__ import annotations

import pytest

from pubfetch.rules.keys import JOURNAL_SELECTOR_KEYS
from pubfetch.rules.model import JournalRule, RuleTest, WebpageRule
from pubfetch.rules.selectors import compile_selector
from pubfetch.rules.urls import UrlRewrite


def journal_rule() -> JournalRule:
    return JournalRule(
        site="example", file="journals.yaml", line=3,
        selectors={"title": compile_selector("h1.article-title"), "abstract": compile_selector("")},
        fulltext_rewrite=UrlRewrite.compile(r"^(https://ex\.org/a/)(\d+)$", "$1$2/full"),
        wait_until="main article",
        tests=(RuleTest(url="https://ex.org/a/1", expect={"title": "A title"}),))


def test_text_gives_each_key_as_the_file_wrote_it() -> None:
    rule = journal_rule()
    assert rule.text("title") == "h1.article-title"
    assert rule.text("fulltext_src") == r"^(https://ex\.org/a/)(\d+)$"
    assert rule.text("fulltext_dst") == "$1$2/full"
    assert rule.text("wait_until") == "main article"


def test_text_is_none_for_keys_the_site_does_not_give() -> None:
    rule = journal_rule()
    assert rule.text("keywords") is None
    assert rule.text("pdf_src") is None
    assert rule.text("pdf_dst") is None


def test_an_empty_selector_is_kept_as_a_forced_empty_field() -> None:
    selector = journal_rule().selector("abstract")
    assert selector is not None and selector.empty
    assert journal_rule().text("abstract") == ""


def test_selector_of_a_missing_key_is_none_and_of_a_non_selector_key_an_error() -> None:
    rule = journal_rule()
    assert "keywords" in JOURNAL_SELECTOR_KEYS
    assert rule.selector("keywords") is None
    with pytest.raises(KeyError, match="fulltext_src"):
        rule.selector("fulltext_src")


def test_rules_are_values_compared_by_what_they_hold() -> None:
    assert journal_rule() == journal_rule()
    assert WebpageRule(regex="^https://a/", file="w.yaml", line=1) != WebpageRule(regex="^https://b/", file="w.yaml",
                                                                                 line=1)
    with pytest.raises(AttributeError):
        journal_rule().site = "other"  # type: ignore[misc]
