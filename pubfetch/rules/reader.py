"""Reading rule files: YAML nodes (with their line numbers, for messages) into sites, webpage rules and test entries,
each value checked as it is read, so that a rule that can never work stops the program at start-up."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from pubfetch.rules.keys import (
    JOURNAL_KEYS,
    JOURNAL_REWRITE_PAIRS,
    JOURNAL_SELECTOR_KEYS,
    JOURNAL_TEST_KEYS,
    WEBPAGE_KEYS,
    WEBPAGE_TEST_KEYS,
    RuleError,
)
from pubfetch.rules.model import JournalRule, RuleTest, UrlEntry, WebpageRule
from pubfetch.rules.selectors import Selector, compile_selector
from pubfetch.rules.urls import UrlRewrite, compile_url_regex
from pubfetch.yamlsafe import NoAliasLoader


def node_line(node: Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None and node.start_mark is not None else None


def yaml_documents(text: str, file: str) -> tuple[list[Node | None], Callable[[Node], Any]]:
    """The YAML documents of a file as node trees (for line numbers) and a safe constructor for scalars."""
    loader = NoAliasLoader(text)
    try:
        docs: list[Node | None] = []
        while loader.check_node():
            docs.append(loader.get_node())
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(e, "problem", None) or "not YAML"  # str(e) quotes the line
        raise RuleError(f"YAML syntax error: {problem}", file=file, line=line) from e

    def construct(node: Node) -> Any:
        try:
            return loader.construct_object(node, deep=True)
        except yaml.YAMLError as e:
            # the problem alone: str(e) adds a multi-line excerpt, and the message must stay one line
            problem = getattr(e, "problem", None) or str(e).splitlines()[0]
            raise RuleError(f"cannot read value: {problem}", file=file, line=node_line(node)) from e

    return docs, construct


def _is_null(node: Node | None) -> bool:
    return node is None or (isinstance(node, ScalarNode) and node.tag == "tag:yaml.org,2002:null")


def mapping_items(node: Node | None, what: str, file: str, rule: str | None = None) -> list[tuple[Node, Node]]:
    if _is_null(node):
        return []
    if not isinstance(node, MappingNode):
        raise RuleError(f"{what} must be a mapping (key: value lines)", file=file, rule=rule, line=node_line(node))
    return list(node.value)


def string_key(node: Node, what: str, file: str, construct: Callable[[Node], Any], rule: str | None = None) -> str:
    value = construct(node) if isinstance(node, ScalarNode) else None
    if not isinstance(value, str):
        found = type(value).__name__ if value is not None else f"a {getattr(node, 'id', 'node')}"
        raise RuleError(f"{what} must be a string, not {found}"
                        " (quote it)", file=file, rule=rule, line=node_line(node))
    if not value.strip():
        raise RuleError(f"{what} cannot be empty", file=file, rule=rule, line=node_line(node))
    return value


def compile_regex_or_fail(regex: str, file: str, line: int | None, key: str | None = None) -> re.Pattern[str]:
    try:
        return compile_url_regex(regex)
    except re.error as e:
        raise RuleError(f"not a valid regular expression (Python re syntax): {e}", file=file, rule=regex, key=key,
                        line=line) from e


def regex_list(node: Node | None, what: str, file: str, construct: Callable[[Node], Any]) -> list[UrlEntry]:
    if _is_null(node):
        return []
    if not isinstance(node, SequenceNode):
        raise RuleError(f"the {what} section must be a list of URL regexes ('- regex' lines)", file=file,
                        line=node_line(node))
    entries = []
    for item in node.value:
        regex = string_key(item, f"a {what} regex", file, construct)
        line = node_line(item)
        entries.append(UrlEntry(regex, compile_regex_or_fail(regex, file, line), what, file, line))
    return entries


def _selector_or_fail(value: str, file: str, rule: str, key: str, line: int | None, lazy: bool) -> Selector:
    try:
        return compile_selector(value, lazy=lazy)
    except ValueError as e:
        raise RuleError(str(e), file=file, rule=rule, key=key, line=line) from e


def _known_keys(node: Node, what: str, file: str, rule: str, construct: Callable[[Node], Any],
                known: Sequence[str]) -> Iterator[tuple[str, int | None, Node]]:
    """The rule's keys with their lines and value nodes; a key the rule kind does not know stops the file at its line,
    with the known keys named, so a typo is found where it was written."""
    for key_node, value_node in mapping_items(node, what, file, rule):
        key = string_key(key_node, f"{what} key", file, construct, rule)
        line = node_line(key_node)
        if key not in known:
            raise RuleError(f"unknown key (known keys: {', '.join(known)})", file=file, rule=rule, key=key, line=line)
        yield key, line, value_node


def parse_site(site: str, node: Node, file: str, construct: Callable[[Node], Any], lazy: bool) -> JournalRule:
    if _is_null(node):
        raise RuleError("site is empty (give at least one key)", file=file, rule=site, line=node_line(node))
    values: dict[str, tuple[str, int | None]] = {}
    tests: tuple[RuleTest, ...] = ()
    for key, line, value_node in _known_keys(node, "a site", file, site, construct, JOURNAL_KEYS):
        if key == "tests":
            tests = _parse_tests(value_node, JOURNAL_TEST_KEYS, file, site, construct)
            continue
        value = construct(value_node) if isinstance(value_node, ScalarNode) else None
        if not isinstance(value, str) or not value.strip():
            raise RuleError("value must be a non-empty string", file=file, rule=site, key=key, line=line)
        values[key] = (value, line)  # a repeated key: the last one wins, as in PubFetcher
    for src_key, dst_key in JOURNAL_REWRITE_PAIRS:
        if (src_key in values) != (dst_key in values):
            present, missing = (src_key, dst_key) if src_key in values else (dst_key, src_key)
            raise RuleError(f"'{present}' needs '{missing}' too", file=file, rule=site, key=present,
                            line=values[present][1])
    selectors = {key: _selector_or_fail(value, file, site, key, line, lazy)
                 for key, (value, line) in values.items() if key in JOURNAL_SELECTOR_KEYS}
    recognise = _selector_or_fail(values["recognise"][0], file, site, "recognise", values["recognise"][1], lazy) \
        if "recognise" in values else None
    wait_until = None
    if "wait_until" in values:
        wait_until = _selector_or_fail(values["wait_until"][0], file, site, "wait_until", values["wait_until"][1],
                                       lazy)
    rewrites: dict[str, UrlRewrite] = {}
    for src_key, dst_key in JOURNAL_REWRITE_PAIRS:
        if src_key in values:
            try:
                rewrites[src_key] = UrlRewrite.compile(values[src_key][0], values[dst_key][0])
            except ValueError as e:
                raise RuleError(str(e), file=file, rule=site, key=src_key, line=values[src_key][1]) from e
    return JournalRule(site, file, node_line(node), MappingProxyType(selectors), rewrites.get("fulltext_src"),
                       rewrites.get("pdf_src"), wait_until.text.strip() if wait_until is not None else None,
                       recognise, tests)


def _parse_tests(node: Node, allowed: Mapping[str, tuple[type, ...]], file: str, rule: str,
                 construct: Callable[[Node], Any]) -> tuple[RuleTest, ...]:
    """A rule's ``tests``: a list of mappings with a ``url``, the expectations, and ``untested: true`` when no
    recorded page backs the entry."""
    if not isinstance(node, SequenceNode):
        raise RuleError("must be a list of test entries ('- url: ...')", file=file, rule=rule, key="tests",
                        line=node_line(node))
    tests = []
    for item in node.value:
        entry: dict[str, Any] = {}
        for key_node, value_node in mapping_items(item, "a test entry", file, rule):
            key = string_key(key_node, "a test entry key", file, construct, rule)
            entry[key] = (construct(value_node) if isinstance(value_node, ScalarNode) else None, node_line(key_node))
        url, line = entry.pop("url", (None, node_line(item)))
        if not isinstance(url, str) or not url.strip():
            raise RuleError("a test entry needs a url", file=file, rule=rule, key="tests", line=line)
        untested, untested_line = entry.pop("untested", (False, line))
        if not isinstance(untested, bool):
            raise RuleError("'untested' must be true or false", file=file, rule=rule, key="tests", line=untested_line)
        expect: dict[str, str | int | bool] = {}
        for key, (value, key_line) in entry.items():
            types = allowed.get(key)
            if types is None:
                raise RuleError(f"unknown test expectation (known: url, untested, {', '.join(allowed)})",
                                file=file, rule=rule, key="tests", line=key_line)
            if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                raise RuleError(f"test expectation '{key}' must be {' or '.join(t.__name__ for t in types)}",
                                file=file, rule=rule, key="tests", line=key_line)
            expect[key] = value if isinstance(value, (str, int)) else str(value)
        tests.append(RuleTest(url.strip(), MappingProxyType(expect), untested, line))
    return tuple(tests)


def parse_webpage_rule(regex: str, node: Node, file: str, construct: Callable[[Node], Any],
                        lazy: bool) -> WebpageRule:
    if _is_null(node):
        raise RuleError("rule is empty (give at least one key)", file=file, rule=regex, line=node_line(node))
    found: dict[str, Any] = {}
    for key, line, value_node in _known_keys(node, "a webpage rule", file, regex, construct, WEBPAGE_KEYS):
        if key == "tests":
            found[key] = _parse_tests(value_node, WEBPAGE_TEST_KEYS, file, regex, construct)
            continue
        value = construct(value_node) if isinstance(value_node, ScalarNode) else value_node
        if key == "javascript":
            if isinstance(value, str) and value.strip().lower() in ("true", "false"):
                value = value.strip().lower() == "true"
            if not isinstance(value, bool):
                raise RuleError("value must be true or false", file=file, rule=regex, key=key, line=line)
            found[key] = value
            continue
        if value is None:
            hint = " (write '' to force an empty value)" if key in ("title", "content") else ""
            raise RuleError(f"value is missing{hint}", file=file, rule=regex, key=key, line=line)
        if not isinstance(value, str):
            raise RuleError("value must be a selector string", file=file, rule=regex, key=key, line=line)
        if not value.strip() and key not in ("title", "content"):
            raise RuleError("value cannot be empty", file=file, rule=regex, key=key, line=line)
        selector = _selector_or_fail(value, file, regex, key, line, lazy)
        found[key] = selector.text.strip() if key == "wait_until" else selector
    return WebpageRule(regex, file, node_line(node), **found)
