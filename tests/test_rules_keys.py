"""What a rule file may say, and the RuleError that names the file, line, rule and key of what is wrong without
quoting the file's own text."""

from __future__ import annotations

from pubfetch.rules.keys import (
    JOURNAL_KEYS,
    JOURNAL_REWRITE_PAIRS,
    JOURNAL_SELECTOR_KEYS,
    JOURNAL_TEST_KEYS,
    WEBPAGE_KEYS,
    RuleError,
)


def test_webpage_keys_and_journal_keys_are_pubfetchers() -> None:
    # PubFetcher's keys, then pubfetch's own: a platform fingerprint and the rule's test entries
    assert WEBPAGE_KEYS == ("title", "content", "javascript", "license", "language", "wait_until", "tests")
    assert JOURNAL_KEYS[-5:] == ("corresp_author_names", "corresp_author_emails", "wait_until", "recognise", "tests")


def test_selector_keys_are_the_journal_keys_that_are_neither_rewrites_nor_switches() -> None:
    rewrite_keys = {key for pair in JOURNAL_REWRITE_PAIRS for key in pair}
    assert set(JOURNAL_SELECTOR_KEYS) == set(JOURNAL_KEYS) - rewrite_keys - {"wait_until", "recognise", "tests"}
    assert "fulltext_a" in JOURNAL_SELECTOR_KEYS and "pdf_a" in JOURNAL_SELECTOR_KEYS
    assert JOURNAL_TEST_KEYS["pdf"] == (str, bool)


def test_error_with_a_line_names_file_line_and_key_but_not_the_rule() -> None:
    err = RuleError("value must be a non-empty string", file="j.yaml", rule="secret-site", key="title", line=7)
    assert str(err) == "scraping rules j.yaml:7, key 'title': value must be a non-empty string"
    assert (err.file, err.rule, err.key, err.line) == ("j.yaml", "secret-site", "title", 7)


def test_error_without_a_line_names_the_rule() -> None:
    err = RuleError("cannot be empty", file="j.yaml", rule="example", key="abstract")
    assert str(err) == "scraping rules j.yaml, rule 'example', key 'abstract': cannot be empty"


def test_an_unknown_key_is_left_out_of_the_message() -> None:
    err = RuleError("unknown key", file="j.yaml", key="password=hunter2", line=3)
    assert str(err) == "scraping rules j.yaml:3: unknown key"
    assert err.key == "password=hunter2"
    assert isinstance(err, ValueError)
