"""Scraping rules: load and validate journals.yaml and webpages.yaml (built-in and user files) and match URLs to rules.

Publisher pages and tool homepages change their markup far more often than the code around them, so the selectors live
in YAML files that users can extend (PubFetcher's ``journalsYaml``/``webpagesYaml`` parameters). This module reads
those files once, checks them thoroughly -- a rule that can never work should stop the program at start-up with the
file, line, rule and key in the message, not silently scrape nothing for months -- and answers "which rule applies to
this URL".

File formats (the same as PubFetcher's, see spec section 8):

* journals YAML: up to four YAML documents separated by ``---``: (1) URL regex -> site name, (2) site name -> mapping
  of :data:`JOURNAL_KEYS` to selectors (or, for ``*_src``/``*_dst``, a URL regex and its replacement), (3) a list of
  URL regexes of pages that need JavaScript, (4) a list of URL regexes of pages after which the browser is restarted.
  PubFetcher requires all four; pubfetch lets a user file stop early (a file that only overrides some sites).
* webpages YAML: one document, URL regex -> mapping of :data:`WEBPAGE_KEYS`. ``title: ''`` or ``content: ''`` force
  an empty title or content; a missing ``title``/``content`` means "use <title>" / "clean the page automatically".

A URL regex not starting with ``^`` gets ``^https?://(www\\.)?`` put in front and is matched case-insensitively; regexes
are searched for anywhere in the URL (Java's ``find()``); when several match, the LAST one wins, and user files are
read after the built-in ones, so they override. Journal rules are looked up with the final URL of a page,
whether to use JavaScript with the URL before fetching (the rules cannot know where a redirect goes).

Differences from PubFetcher, all deliberate:

* Regexes are Python ``re`` syntax (Java's ``\\p{..}`` classes are not available and fail at load time).
* Selectors are CSS as understood by soupsieve (BeautifulSoup's ``select``). The jsoup extensions ``:contains(text)``,
  ``:containsOwn(text)``, ``:eq(n)``, ``:lt(n)`` and ``:gt(n)`` are translated (note: soupsieve's text matching is
  case-sensitive, jsoup's is not); the regex ones (``:matches`` and friends) are rejected with a message. jsoup's
  ``[attr~=regex]`` is CSS's "contains the word" here -- it cannot be told apart, so it is not translated.
* Every selector is compiled when the file is loaded, so a typo is an error at start-up, not a warning per page.
"""

from __future__ import annotations

import functools
import importlib.resources
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml
from bs4 import BeautifulSoup
from bs4.element import Tag
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from pubfetch.yamlsafe import NoAliasLoader

log = logging.getLogger(__name__)

#: Keys of a journal site, in the order PubFetcher applies them.
JOURNAL_KEYS = (
    "pmid", "pmcid", "doi", "title", "subtitle", "keywords", "keywords_split", "abstract", "fulltext",
    "fulltext_src", "fulltext_dst", "fulltext_a", "pdf_src", "pdf_dst", "pdf_a",
    "corresp_author_names", "corresp_author_emails", "wait_until", "recognise", "tests",
)  # fmt: skip
#: Journal keys whose values are URL regexes / replacements rather than selectors; they come in pairs.
JOURNAL_REWRITE_PAIRS = (("fulltext_src", "fulltext_dst"), ("pdf_src", "pdf_dst"))
JOURNAL_SELECTOR_KEYS = tuple(k for k in JOURNAL_KEYS
                              if not k.endswith(("_src", "_dst")) and k not in ("wait_until", "recognise", "tests"))
#: Keys of a webpage rule.
WEBPAGE_KEYS = ("title", "content", "javascript", "license", "language", "wait_until", "tests")
#: What a test entry of a journal site / a webpage rule may expect, with the YAML type of each expectation: text is
#: compared exactly, a number is a length in characters (0: empty), ``pdf`` is a PDF link (true: some link).
JOURNAL_TEST_KEYS: Mapping[str, tuple[type, ...]] = MappingProxyType(
    {"title": (str,), "doi": (str,), "abstract": (int,), "fulltext": (int,), "keywords": (int,), "pdf": (str, bool)})
WEBPAGE_TEST_KEYS: Mapping[str, tuple[type, ...]] = MappingProxyType(
    {"title": (str,), "content": (int,), "license": (str,), "language": (str,)})
#: The keys a rule file may have: named in messages (an unknown key is the file's own text, and is not).
_RULE_KEYS = frozenset(JOURNAL_KEYS) | frozenset(WEBPAGE_KEYS)

BUILTIN_PACKAGE = "pubfetch.scraping_rules"
BUILTIN_DIR = Path(__file__).resolve().parent.parent / "scraping_rules"
JOURNALS_FILE = "journals.yaml"
WEBPAGES_FILE = "webpages.yaml"

_URL_PREFIX = r"^https?://(www\.)?"
_LEADING_FLAGS = re.compile(r"^\(\?([aiLmsux]+)\)")
_JAVA_GROUP_REF = re.compile(r"\$(?:\{([A-Za-z][A-Za-z0-9]*)\}|([0-9]))")
_EMPTY_SOUP = BeautifulSoup("", "html.parser")


class RuleError(ValueError):
    """A scraping-rule file that cannot be used; the message names the file, line and key, and the rule (regex or
    site) only when no line is known.

    The message never quotes the file's own text where the line number finds it: a file that is no rule file (a
    secret handed over as ``journals_yaml``) must not come back in an error, which may end up where others read it.
    The rule and key stay attributes for callers."""

    def __init__(self, problem: str, *, file: str, rule: str | None = None, key: str | None = None,
                 line: int | None = None) -> None:
        self.problem = problem
        self.file = file
        self.rule = rule
        self.key = key
        self.line = line
        where = f"{file}:{line}" if line else file
        parts = [f"scraping rules {where}"]
        if rule is not None and not line:
            parts.append(f"rule '{rule}'")
        if key is not None and key in _RULE_KEYS:
            parts.append(f"key '{key}'")
        super().__init__(", ".join(parts) + ": " + problem)


# ---------------------------------------------------------------------------------------------------- selectors


_JSOUP_TEXT = {"contains": ":-soup-contains", "containsOwn": ":-soup-contains-own"}
_JSOUP_INDEX = ("eq", "lt", "gt")
_JSOUP_UNSUPPORTED = (
    "matches", "matchesOwn", "matchText", "matchesWholeText", "matchesWholeOwnText", "containsData",
    "containsWholeText", "containsWholeOwnText",
)  # fmt: skip
_PSEUDO_NAME = re.compile(r":([A-Za-z][A-Za-z-]*)\(")


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _closing_paren(selector: str, start: int) -> int:
    """Index of the ``)`` closing the ``(`` just before ``start``, honouring nesting and quotes; -1 if none."""
    depth, quote, i = 1, "", start
    while i < len(selector):
        c = selector[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _unquote(arg: str) -> str:
    arg = arg.strip()
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "\"'":
        return arg[1:-1]
    return arg


def translate_jsoup(selector: str) -> str:
    """Rewrite the jsoup pseudo-classes that have a CSS/soupsieve equivalent; raise ValueError for those without.

    Only text outside quotes and attribute brackets is rewritten, and nested selectors (inside ``:not``, ``:has``)
    are handled because the whole string is scanned.
    """
    out: list[str] = []
    i, n = 0, len(selector)
    quote, bracket = "", 0
    while i < n:
        c = selector[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(selector[i + 1])
                i += 1
            elif c == quote:
                quote = ""
            i += 1
            continue
        if c in "\"'":
            quote = c
        elif c == "[":
            bracket += 1
        elif c == "]":
            bracket = max(0, bracket - 1)
        elif c == ":" and not bracket:
            m = _PSEUDO_NAME.match(selector, i)
            if m and m.group(1) in (*_JSOUP_TEXT, *_JSOUP_INDEX, *_JSOUP_UNSUPPORTED):
                name = m.group(1)
                end = _closing_paren(selector, m.end())
                if end < 0:
                    raise ValueError(f"unclosed parenthesis after ':{name}('")
                arg = selector[m.end():end]
                if name in _JSOUP_UNSUPPORTED:
                    raise ValueError(f"jsoup's ':{name}()' (regular expressions on text) is not supported; "
                                     "use ':-soup-contains()' / ':-soup-contains-own()' or a structural selector")
                if name in _JSOUP_TEXT:
                    out.append(f"{_JSOUP_TEXT[name]}({_css_string(_unquote(arg))})")
                else:
                    if not arg.strip().isdigit():
                        raise ValueError(f"':{name}()' needs a non-negative whole number, not '{arg}'")
                    index = int(arg)
                    out.append({"eq": f":nth-child({index + 1})", "lt": f":nth-child(-n+{index})",
                                "gt": f":nth-child(n+{index + 2})"}[name])
                i = end + 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Selector:
    """A CSS selector. An empty selector (``''``) selects nothing: a rule's way of forcing an empty field.

    The selectors of the built-in rule files are compiled on first use (the suite checks them all): compiling the
    150 of them costs a second of start-up, mostly soupsieve building its own patterns, which a run that never
    scrapes a publisher page does not need. A user's file is compiled when loaded, so that a typo is a usage error.
    """

    text: str
    css: str = ""
    _compiled: list[Any] = field(default_factory=list, repr=False, compare=False)

    @property
    def compiled(self) -> Any:
        """The soupsieve selector (``None`` for the empty selector)."""
        if not self.css:
            return None
        if not self._compiled:
            self._compiled.append(_EMPTY_SOUP.css.compile(self.css))  # two threads may both compile: harmless
        return self._compiled[0]

    @property
    def empty(self) -> bool:
        return not self.css

    def select(self, root: Tag) -> list[Tag]:
        """All matching elements in document order."""
        return list(self.compiled.select(root)) if self.compiled is not None else []

    def select_one(self, root: Tag) -> Tag | None:
        return self.compiled.select_one(root) if self.compiled is not None else None


def compile_selector(text: str, *, lazy: bool = False) -> Selector:
    """Compile a rule selector (jsoup extensions translated); ValueError with soupsieve's explanation if it is bad.
    ``lazy``: translate now, compile on first use (for the built-in rules, checked by the test suite)."""
    stripped = text.strip()
    if not stripped:
        return Selector(text)
    css = translate_jsoup(stripped)
    if lazy:
        return Selector(text, css)
    try:
        compiled = _EMPTY_SOUP.css.compile(css)
    except Exception as e:  # soupsieve raises SelectorSyntaxError, and a few others for unsupported features
        raise ValueError(f"invalid CSS selector '{stripped}': {str(e).splitlines()[0]}") from e
    return Selector(text, css, [compiled])


# -------------------------------------------------------------------------------------------------- URL regexes


def compile_url_regex(regex: str) -> re.Pattern[str]:
    """PubFetcher's URL regex: unless it starts with ``^``, prefixed by ``^https?://(www\\.)?`` and case-insensitive.

    Leading inline flags of the rule (``(?s)foo``) are moved in front of the prefix, where Python requires them.
    """
    if regex.startswith("^"):
        return re.compile(regex)
    flags = "i"
    m = _LEADING_FLAGS.match(regex)
    if m:
        flags += m.group(1).replace("i", "")
        regex = regex[m.end():]
    return re.compile(f"(?{flags}){_URL_PREFIX}{regex}")


@dataclass(frozen=True)
class UrlRewrite:
    """``*_src``/``*_dst``: the page URL with the first match of ``src`` replaced by ``dst`` (Java replaceFirst,
    so ``$1``/``${name}`` refer to groups and a backslash escapes the next character)."""

    src: str
    dst: str
    pattern: re.Pattern[str] = field(repr=False, compare=False)
    pieces: tuple[str | int, ...] = field(repr=False, compare=False)

    @classmethod
    def compile(cls, src: str, dst: str) -> UrlRewrite:
        try:
            pattern = re.compile(src)
        except re.error as e:
            raise ValueError(f"invalid regular expression '{src}': {e}") from e
        return cls(src, dst, pattern, _parse_java_replacement(dst, pattern))

    def apply(self, url: str) -> str | None:
        """The rewritten URL, or None when nothing matched or the result equals the input."""
        m = self.pattern.search(url)
        if m is None:
            return None
        replacement = "".join((m.group(p) or "") if isinstance(p, int) else p for p in self.pieces)
        new = url[: m.start()] + replacement + url[m.end():]
        return new if new and new != url else None


def _parse_java_replacement(dst: str, pattern: re.Pattern[str]) -> tuple[str | int, ...]:
    """Split a Java replacement string into literal text and group numbers (named groups resolved to numbers)."""
    pieces: list[str | int] = []
    literal: list[str] = []
    i = 0
    while i < len(dst):
        c = dst[i]
        if c == "\\":
            if i + 1 >= len(dst):
                raise ValueError(f"replacement '{dst}' ends with a lone backslash")
            literal.append(dst[i + 1])
            i += 2
            continue
        if c != "$":
            literal.append(c)
            i += 1
            continue
        m = _JAVA_GROUP_REF.match(dst, i)
        if m is None:
            raise ValueError(f"replacement '{dst}' has an illegal group reference at position {i} "
                             "(write \\$ for a literal dollar sign)")
        if m.group(1):
            if m.group(1) not in pattern.groupindex:
                raise ValueError(f"replacement '{dst}' refers to group '{m.group(1)}', which the regex lacks")
            group = pattern.groupindex[m.group(1)]
            i = m.end()
        else:
            group = int(m.group(2))
            i = m.end()
            while i < len(dst) and dst[i].isdigit() and group * 10 + int(dst[i]) <= pattern.groups:
                group = group * 10 + int(dst[i])  # Java's greedy-but-valid reading of $12
                i += 1
            if group > pattern.groups:
                raise ValueError(f"replacement '{dst}' refers to group {group}, but the regex has {pattern.groups}")
        if literal:
            pieces.append("".join(literal))
            literal = []
        pieces.append(group)
    if literal:
        pieces.append("".join(literal))
    return tuple(pieces)


# ------------------------------------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class RuleTest:
    """A test entry of a rule: the URL of a page and what the rule must get from it (see :data:`JOURNAL_TEST_KEYS`).

    ``untested``: no recorded page backs the entry, so only a live run checks it (the suite checks the others against
    ../shared/corpus, and that the flag is true exactly when no recorded page exists).
    """

    url: str
    expect: Mapping[str, str | int | bool]
    untested: bool = False
    line: int | None = None


@dataclass(frozen=True)
class JournalRule:
    """The rules of one journal site (a publisher platform), ready to apply."""

    site: str
    file: str
    line: int | None
    selectors: Mapping[str, Selector]
    fulltext_rewrite: UrlRewrite | None = None
    pdf_rewrite: UrlRewrite | None = None
    #: With JavaScript, a CSS selector whose element means the page is ready (given to the browser as text, so keep
    #: it to standard CSS).
    wait_until: str | None = None
    #: A platform's fingerprint: a page on a host no URL regex knows gets this rule when the selector matches
    #: something in it (a generator meta tag, platform markup, a platform script's name).
    recognise: Selector | None = None
    tests: tuple[RuleTest, ...] = ()

    def text(self, key: str) -> str | None:
        """The value of any journal key as the rule file gives it (a selector, a URL regex or replacement, the
        wait_until selector), or None when the site does not give that key: PubFetcher's Scrape.getSelector."""
        rewrite = {"fulltext": self.fulltext_rewrite, "pdf": self.pdf_rewrite}.get(key.rsplit("_", 1)[0])
        if key.endswith("_src") and rewrite is not None:
            return rewrite.src
        if key.endswith("_dst") and rewrite is not None:
            return rewrite.dst
        if key == "wait_until":
            return self.wait_until
        selector = self.selectors.get(key) if key in JOURNAL_SELECTOR_KEYS else None
        return selector.text if selector is not None else None

    def selector(self, key: str) -> Selector | None:
        """The selector for a key of :data:`JOURNAL_SELECTOR_KEYS`, or None when the site does not give one."""
        if key not in JOURNAL_SELECTOR_KEYS:
            raise KeyError(f"'{key}' is not a journal selector key (one of {', '.join(JOURNAL_SELECTOR_KEYS)})")
        return self.selectors.get(key)


@dataclass(frozen=True)
class WebpageRule:
    """The rule for webpages/docs whose URL matches ``regex``.

    ``title``/``content`` None: the key is missing (use <title> / clean the page automatically); an empty
    :class:`Selector`: force an empty title/content. ``javascript`` None: not said (PubFetcher then decides by the
    length of the page fetched without JavaScript).
    """

    regex: str
    file: str
    line: int | None
    title: Selector | None = None
    content: Selector | None = None
    javascript: bool | None = None
    license: Selector | None = None
    language: Selector | None = None
    #: As :attr:`JournalRule.wait_until`: CSS text for the browser.
    wait_until: str | None = None
    tests: tuple[RuleTest, ...] = ()


@dataclass(frozen=True)
class _UrlEntry:
    regex: str
    pattern: re.Pattern[str]
    value: str
    file: str
    line: int | None


@dataclass(frozen=True)
class _WebpageEntry:
    pattern: re.Pattern[str]
    rule: WebpageRule


@dataclass(frozen=True)
class _SiteEntry:
    rule: JournalRule
    line: int | None


# ------------------------------------------------------------------------------------------------ YAML reading


def _line(node: Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None and node.start_mark is not None else None


def _documents(text: str, file: str) -> tuple[list[Node | None], Callable[[Node], Any]]:
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
            raise RuleError(f"cannot read value: {problem}", file=file, line=_line(node)) from e

    return docs, construct


def _is_null(node: Node | None) -> bool:
    return node is None or (isinstance(node, ScalarNode) and node.tag == "tag:yaml.org,2002:null")


def _mapping(node: Node | None, what: str, file: str, rule: str | None = None) -> list[tuple[Node, Node]]:
    if _is_null(node):
        return []
    if not isinstance(node, MappingNode):
        raise RuleError(f"{what} must be a mapping (key: value lines)", file=file, rule=rule, line=_line(node))
    return list(node.value)


def _string_key(node: Node, what: str, file: str, construct: Callable[[Node], Any], rule: str | None = None) -> str:
    value = construct(node) if isinstance(node, ScalarNode) else None
    if not isinstance(value, str):
        found = type(value).__name__ if value is not None else f"a {getattr(node, 'id', 'node')}"
        raise RuleError(f"{what} must be a string, not {found}"
                        " (quote it)", file=file, rule=rule, line=_line(node))
    if not value.strip():
        raise RuleError(f"{what} cannot be empty", file=file, rule=rule, line=_line(node))
    return value


def _compile_regex_or_fail(regex: str, file: str, line: int | None, key: str | None = None) -> re.Pattern[str]:
    try:
        return compile_url_regex(regex)
    except re.error as e:
        raise RuleError(f"not a valid regular expression (Python re syntax): {e}", file=file, rule=regex, key=key,
                        line=line) from e


def _regex_list(node: Node | None, what: str, file: str, construct: Callable[[Node], Any]) -> list[_UrlEntry]:
    if _is_null(node):
        return []
    if not isinstance(node, SequenceNode):
        raise RuleError(f"the {what} section must be a list of URL regexes ('- regex' lines)", file=file,
                        line=_line(node))
    entries = []
    for item in node.value:
        regex = _string_key(item, f"a {what} regex", file, construct)
        entries.append(_UrlEntry(regex, _compile_regex_or_fail(regex, file, _line(item)), what, file, _line(item)))
    return entries


def _selector_or_fail(value: str, file: str, rule: str, key: str, line: int | None, lazy: bool) -> Selector:
    try:
        return compile_selector(value, lazy=lazy)
    except ValueError as e:
        raise RuleError(str(e), file=file, rule=rule, key=key, line=line) from e


def _parse_site(site: str, node: Node, file: str, construct: Callable[[Node], Any], lazy: bool) -> JournalRule:
    if _is_null(node):
        raise RuleError("site is empty (give at least one key)", file=file, rule=site, line=_line(node))
    values: dict[str, tuple[str, int | None]] = {}
    tests: tuple[RuleTest, ...] = ()
    for key_node, value_node in _mapping(node, "a site", file, site):
        key = _string_key(key_node, "a site key", file, construct, site)
        line = _line(key_node)
        if key not in JOURNAL_KEYS:
            raise RuleError(f"unknown key (known keys: {', '.join(JOURNAL_KEYS)})", file=file, rule=site, key=key,
                            line=line)
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
    return JournalRule(site, file, _line(node), MappingProxyType(selectors), rewrites.get("fulltext_src"),
                       rewrites.get("pdf_src"), wait_until.text.strip() if wait_until is not None else None,
                       recognise, tests)


def _parse_tests(node: Node, allowed: Mapping[str, tuple[type, ...]], file: str, rule: str,
                 construct: Callable[[Node], Any]) -> tuple[RuleTest, ...]:
    """A rule's ``tests``: a list of mappings with a ``url``, the expectations, and ``untested: true`` when no
    recorded page backs the entry."""
    if not isinstance(node, SequenceNode):
        raise RuleError("must be a list of test entries ('- url: ...')", file=file, rule=rule, key="tests",
                        line=_line(node))
    tests = []
    for item in node.value:
        entry: dict[str, Any] = {}
        for key_node, value_node in _mapping(item, "a test entry", file, rule):
            key = _string_key(key_node, "a test entry key", file, construct, rule)
            entry[key] = (construct(value_node) if isinstance(value_node, ScalarNode) else None, _line(key_node))
        url, line = entry.pop("url", (None, _line(item)))
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


def _parse_webpage_rule(regex: str, node: Node, file: str, construct: Callable[[Node], Any],
                        lazy: bool) -> WebpageRule:
    if _is_null(node):
        raise RuleError("rule is empty (give at least one key)", file=file, rule=regex, line=_line(node))
    found: dict[str, Any] = {}
    for key_node, value_node in _mapping(node, "a webpage rule", file, regex):
        key = _string_key(key_node, "a webpage rule key", file, construct, regex)
        line = _line(key_node)
        if key not in WEBPAGE_KEYS:
            raise RuleError(f"unknown key (known keys: {', '.join(WEBPAGE_KEYS)})", file=file, rule=regex, key=key,
                            line=line)
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
    return WebpageRule(regex, file, _line(node), **found)


# ------------------------------------------------------------------------------------------------ the rule set


class ScrapingRules:
    """All scraping rules in effect: the built-in files, then the user's, with lookups by URL.

    Instances are immutable after loading (``add_*`` replace the internal tuples atomically, so a failed add leaves
    the rules as they were) and safe to share between threads.
    """

    def __init__(self) -> None:
        self._regexes: tuple[_UrlEntry, ...] = ()
        self._sites: Mapping[str, _SiteEntry] = MappingProxyType({})
        self._javascript: tuple[_UrlEntry, ...] = ()
        self._restart: tuple[_UrlEntry, ...] = ()
        self._webpages: tuple[_WebpageEntry, ...] = ()

    # --- loading ---------------------------------------------------------------------------------------------------

    @classmethod
    def load(cls, user_journals: str | Path | None = None, user_webpages: str | Path | None = None) -> ScrapingRules:
        """The built-in rules followed by the user's files (``None`` or ``""``: none, as FetcherArgs' default)."""
        rules = cls()
        rules.add_journals(_builtin_text(JOURNALS_FILE), JOURNALS_FILE, lazy=True)
        rules.add_webpages(_builtin_text(WEBPAGES_FILE), WEBPAGES_FILE, lazy=True)
        if user_journals:
            rules.add_journals_file(user_journals)
        if user_webpages:
            rules.add_webpages_file(user_webpages)
        return rules

    def add_journals_file(self, path: str | Path) -> None:
        self.add_journals(_read_text(path), str(path))

    def add_webpages_file(self, path: str | Path) -> None:
        self.add_webpages(_read_text(path), str(path))

    def add_journals(self, text: str, file: str = "<journals>", *, lazy: bool = False) -> None:
        """Parse a journals YAML and merge it over the current rules; RuleError if it, or the result, is invalid.
        ``lazy``: compile the selectors on first use (see :class:`Selector`)."""
        docs, construct = _documents(text, file)
        if len(docs) > 4:
            raise RuleError(f"has {len(docs)} sections, at most 4 are allowed (regex, site, javascript, restart; "
                            "separated by ---)", file=file, line=_line(docs[4]))
        docs += [None] * (4 - len(docs))
        regexes = list(self._regexes)
        for key_node, value_node in _mapping(docs[0], "the regex section (section 1)", file):
            regex = _string_key(key_node, "a regex", file, construct)
            if isinstance(value_node, MappingNode):
                raise RuleError("the site name of a regex must be a string, not a mapping (the first section maps "
                                "regexes to site names; start a file that only defines sites with '---' twice)",
                                file=file, rule=regex, line=_line(key_node))
            site = _string_key(value_node, "the site name of a regex", file, construct, regex)
            line = _line(key_node)
            regexes.append(_UrlEntry(regex, _compile_regex_or_fail(regex, file, line), site, file, line))
        sites = dict(self._sites)
        for key_node, value_node in _mapping(docs[1], "the site section (section 2)", file):
            site = _string_key(key_node, "a site name", file, construct)
            sites[site] = _SiteEntry(_parse_site(site, value_node, file, construct, lazy), _line(key_node))
        javascript = [*self._javascript, *_regex_list(docs[2], "javascript", file, construct)]
        restart = [*self._restart, *_regex_list(docs[3], "restart", file, construct)]
        _validate_journals(regexes, sites)
        self._regexes, self._sites = tuple(regexes), MappingProxyType(sites)
        self._javascript, self._restart = tuple(javascript), tuple(restart)

    def add_webpages(self, text: str, file: str = "<webpages>", *, lazy: bool = False) -> None:
        """Parse a webpages YAML and add its rules after the current ones; RuleError if it is invalid.
        ``lazy``: as for :meth:`add_journals`."""
        docs, construct = _documents(text, file)
        if len(docs) > 1:
            raise RuleError(f"has {len(docs)} sections, a webpages file has only one (no ---)", file=file,
                            line=_line(docs[1]))
        entries = list(self._webpages)
        for key_node, value_node in _mapping(docs[0] if docs else None, "a webpages file", file):
            regex = _string_key(key_node, "a regex", file, construct)
            pattern = _compile_regex_or_fail(regex, file, _line(key_node))
            entries.append(_WebpageEntry(pattern, _parse_webpage_rule(regex, value_node, file, construct, lazy)))
        self._webpages = tuple(entries)

    # --- lookups ---------------------------------------------------------------------------------------------------

    def site(self, url: str) -> str | None:
        """The journal site name for a (final) URL: the site of the last matching regex."""
        entry = _last_match(self._regexes, url)
        return entry.value if entry is not None else None

    def journal_rule(self, url: str) -> JournalRule | None:
        """The rules for a journal page at its FINAL url (after redirects), or None when no regex matches."""
        site = self.site(url)
        return self._sites[site].rule if site is not None else None

    def page_rule(self, url: str, page: Tag) -> JournalRule | None:
        """The rule for a fetched page: by its final URL, else by the platform the page itself shows (the LAST site
        whose ``recognise`` selector matches, so a user file's platforms and specific platforms listed after generic
        ones win)."""
        return self.journal_rule(url) or self.recognise(page)

    def recognise(self, page: Tag) -> JournalRule | None:
        """The platform rule whose fingerprint (``recognise`` selector) the page carries, or None."""
        found = None
        for entry in self._sites.values():
            selector = entry.rule.recognise
            if selector is not None and selector.select_one(page) is not None:
                found = entry.rule
        return found

    def site_rule(self, site: str) -> JournalRule | None:
        entry = self._sites.get(site)
        return entry.rule if entry is not None else None

    def javascript(self, start_url: str) -> bool:
        """Whether a journal page must be fetched with JavaScript, decided from the URL BEFORE fetching."""
        return _last_match(self._javascript, start_url) is not None

    def restart(self, url: str) -> bool:
        """Whether the browser should be restarted after visiting this URL (the fourth journals section)."""
        return _last_match(self._restart, url) is not None

    def webpage_rule(self, url: str) -> WebpageRule | None:
        """The rule for a webpage/doc at its FINAL url (title, content, license, language, wait_until)."""
        if not url:
            return None
        found = None
        for entry in self._webpages:
            if entry.pattern.search(url):
                found = entry.rule
        return found

    def webpage_javascript(self, start_url: str) -> bool | None:
        """The ``javascript`` key of the webpage rule for the START url (None: no rule, or the rule does not say)."""
        rule = self.webpage_rule(start_url)
        return rule.javascript if rule is not None else None

    # --- introspection ---------------------------------------------------------------------------------------------

    @property
    def sites(self) -> Mapping[str, JournalRule]:
        return MappingProxyType({name: entry.rule for name, entry in self._sites.items()})

    @property
    def journal_regexes(self) -> Sequence[tuple[str, str]]:
        """(regex as written, site) in matching order."""
        return tuple((e.regex, e.value) for e in self._regexes)

    @property
    def webpage_rules(self) -> Sequence[WebpageRule]:
        return tuple(e.rule for e in self._webpages)


def _last_match(entries: Sequence[_UrlEntry], url: str) -> _UrlEntry | None:
    if not url:
        return None
    found = None
    for entry in entries:
        if entry.pattern.search(url):
            found = entry
    return found


def _validate_journals(regexes: Sequence[_UrlEntry], sites: Mapping[str, _SiteEntry]) -> None:
    """PubFetcher's cross-checks: every regex names a defined site and every site is named by some regex."""
    for entry in regexes:
        if entry.value not in sites:
            raise RuleError("the site this regex names is not defined in the site section", file=entry.file,
                            rule=entry.regex, line=entry.line)
    used = {entry.value for entry in regexes}
    for name, site in sites.items():
        if name not in used and site.rule.recognise is None:
            raise RuleError("no regex in the regex section maps to this site, and it has no 'recognise' selector",
                            file=site.rule.file, rule=name, line=site.line)


def _read_text(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise RuleError(f"cannot read the file: {e.strerror or e}", file=str(path)) from e
    except UnicodeDecodeError as e:
        raise RuleError(f"the file is not UTF-8 text: {e}", file=str(path)) from e


def _builtin_text(name: str) -> str:
    """A built-in rule file: package data when installed, else the repository's scraping_rules/ directory."""
    try:
        return importlib.resources.files(BUILTIN_PACKAGE).joinpath(name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        path = BUILTIN_DIR / name
        if not path.is_file():
            raise RuleError(f"built-in rule file not found (looked in package {BUILTIN_PACKAGE} and {BUILTIN_DIR})",
                            file=name) from None
        return path.read_text(encoding="utf-8")


@functools.cache
def default_rules() -> ScrapingRules:
    """The built-in rules, loaded once per process (user files need :meth:`ScrapingRules.load`)."""
    return ScrapingRules.load()
