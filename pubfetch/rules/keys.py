"""What a scraping-rule file may say -- the keys of a journal site, of a webpage rule and of a test entry -- and the
error naming the file, line, rule and key of what is wrong in one."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

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
