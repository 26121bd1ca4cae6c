"""Reading rule files node by node: each value checked as it is read, each error with the line it is on."""

from __future__ import annotations

from typing import Any

import pytest
from yaml.nodes import Node

from pubfetch.rules.keys import RuleError
from pubfetch.rules.reader import (
    mapping_items,
    node_line,
    parse_site,
    parse_webpage_rule,
    regex_list,
    string_key,
    yaml_documents,
)


def first_document(text: str, file: str = "r.yaml") -> tuple[Node, Any]:
    docs, construct = yaml_documents(text, file)
    assert docs[0] is not None
    return docs[0], construct


def only_value(text: str) -> tuple[str, Node, Any]:
    """The single ``key: value`` of ``text`` as (key, value node, constructor)."""
    doc, construct = first_document(text)
    ((key_node, value_node),) = mapping_items(doc, "a test mapping", "r.yaml")
    return construct(key_node), value_node, construct


def test_documents_keep_their_line_numbers() -> None:
    docs, _ = yaml_documents("a: 1\n---\n\n- x\n- y\n", "r.yaml")
    assert len(docs) == 2
    assert [node_line(d) for d in docs] == [1, 4]
    assert node_line(None) is None


def test_syntax_error_names_the_line_without_quoting_it() -> None:
    with pytest.raises(RuleError) as info:
        yaml_documents("a: 1\nb: [unclosed-secret\n", "r.yaml")
    assert info.value.file == "r.yaml"
    assert info.value.line is not None and info.value.line >= 2
    assert "unclosed-secret" not in str(info.value)


def test_aliases_are_refused_as_a_rule_error() -> None:
    with pytest.raises(RuleError, match="aliases"):
        yaml_documents("a: &x h1\nb: *x\n", "r.yaml")


def test_mapping_items_accept_null_and_refuse_a_list() -> None:
    assert mapping_items(None, "the regex section", "r.yaml") == []
    doc, _ = first_document("- a\n- b\n")
    with pytest.raises(RuleError, match="the regex section must be a mapping") as info:
        mapping_items(doc, "the regex section", "r.yaml")
    assert info.value.line == 1


def test_string_key_refuses_numbers_and_blank_strings() -> None:
    doc, construct = first_document("12: a\n' ': b\nok: c\n")
    (number, _), (blank, _), (ok, _) = mapping_items(doc, "m", "r.yaml")
    with pytest.raises(RuleError, match="a regex must be a string, not int") as info:
        string_key(number, "a regex", "r.yaml", construct)
    assert info.value.line == 1
    with pytest.raises(RuleError, match="cannot be empty") as info:
        string_key(blank, "a regex", "r.yaml", construct)
    assert info.value.line == 2
    assert string_key(ok, "a regex", "r.yaml", construct) == "ok"


def test_regex_list_compiles_each_regex_with_its_line() -> None:
    doc, construct = first_document("- 'a\\.org/'\n- '^https://b\\.org/'\n")
    entries = regex_list(doc, "javascript", "r.yaml", construct)
    assert [(e.regex, e.value, e.line) for e in entries] == [("a\\.org/", "javascript", 1),
                                                              ("^https://b\\.org/", "javascript", 2)]
    assert entries[0].pattern.search("http://www.A.org/x")
    with pytest.raises(RuleError, match="not a valid regular expression") as info:
        regex_list(first_document("- ok\n- 'a('\n")[0], "restart", "r.yaml", construct)
    assert info.value.line == 2


def test_site_reads_selectors_rewrites_fingerprint_and_tests() -> None:
    site, node, construct = only_value(
        "ex:\n  title: 'h1:eq(0)'\n  pdf_src: '/abs/(\\d+)'\n  pdf_dst: '/pdf/$1'\n  wait_until: ' main '\n"
        "  recognise: 'meta[name=generator]'\n  tests:\n    - url: ' https://ex.org/abs/1 '\n      title: T\n"
        "      pdf: true\n")
    rule = parse_site(site, node, "r.yaml", construct, lazy=False)
    assert (rule.site, rule.file, rule.line) == ("ex", "r.yaml", 2)
    assert rule.selector("title").css == "h1:nth-child(1)"
    assert rule.pdf_rewrite is not None and rule.pdf_rewrite.apply("https://ex.org/abs/12") == "https://ex.org/pdf/12"
    assert rule.wait_until == "main"
    assert rule.recognise is not None and rule.recognise.text == "meta[name=generator]"
    (entry,) = rule.tests
    assert (entry.url, dict(entry.expect), entry.untested, entry.line) == ("https://ex.org/abs/1",
                                                                           {"title": "T", "pdf": True}, False, 8)


@pytest.mark.parametrize(("body", "key", "line", "message"), [
    ("  pdf_dst: '/pdf'\n", "pdf_dst", 2, "'pdf_dst' needs 'pdf_src' too"),
    ("  title: 3\n", "title", 2, "non-empty string"),
    ("  title: h1\n  tests:\n    - title: T\n", "tests", 4, "a test entry needs a url"),
    ("  tests:\n    - url: u\n      abstract: long\n", "tests", 4, "'abstract' must be int"),
    ("  tests:\n    - url: u\n      untested: maybe\n", "tests", 4, "'untested' must be true or false"),
    ("  tests:\n    - url: u\n      colour: red\n", "tests", 4, "unknown test expectation"),
])  # fmt: skip
def test_site_errors_name_key_and_line(body: str, key: str, line: int, message: str) -> None:
    site, node, construct = only_value("ex:\n" + body)
    with pytest.raises(RuleError) as info:
        parse_site(site, node, "r.yaml", construct, lazy=False)
    assert (info.value.rule, info.value.key, info.value.line) == ("ex", key, line)
    assert message in info.value.problem


def test_lazy_site_defers_compiling_its_selectors() -> None:
    site, node, construct = only_value("ex:\n  title: 'h1['\n")
    with pytest.raises(RuleError, match="invalid CSS selector"):
        parse_site(site, node, "r.yaml", construct, lazy=False)
    rule = parse_site(site, node, "r.yaml", construct, lazy=True)
    assert rule.selector("title").text == "h1["


def test_webpage_rule_reads_switches_and_forced_empty_values() -> None:
    regex, node, construct = only_value(
        "'tool\\.org/':\n  title: ''\n  content: main\n  javascript: 'TRUE'\n  wait_until: ' #app '\n")
    rule = parse_webpage_rule(regex, node, "w.yaml", construct, lazy=False)
    assert (rule.regex, rule.file, rule.line) == ("tool\\.org/", "w.yaml", 2)
    assert rule.title is not None and rule.title.empty
    assert rule.content is not None and rule.content.css == "main"
    assert rule.javascript is True
    assert rule.wait_until == "#app"
    assert rule.license is None and rule.language is None
