"""The rules as loaded: a journal site's selectors and URL rewrites, a webpage rule, a test entry, and the entries of a
rule set (a URL regex with the site it names, where in which file)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pubfetch.rules.keys import JOURNAL_SELECTOR_KEYS
from pubfetch.rules.selectors import Selector
from pubfetch.rules.urls import UrlRewrite


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
class UrlEntry:
    regex: str
    pattern: re.Pattern[str]
    value: str
    file: str
    line: int | None


@dataclass(frozen=True)
class WebpageEntry:
    pattern: re.Pattern[str]
    rule: WebpageRule


@dataclass(frozen=True)
class SiteEntry:
    rule: JournalRule
    line: int | None
