"""Scraping rules: load and validate journals.yaml and webpages.yaml (built-in and user files) and match URLs to rules.

Publisher pages and tool homepages change their markup far more often than the code around them, so the selectors live
in YAML files that users can extend (PubFetcher's ``journalsYaml``/``webpagesYaml`` parameters). This package reads
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

The package: :mod:`~pubfetch.rules.keys` (what a file may say, :class:`RuleError`), :mod:`~pubfetch.rules.selectors`,
:mod:`~pubfetch.rules.urls` (regexes and URL rewrites), :mod:`~pubfetch.rules.model` (the loaded rules),
:mod:`~pubfetch.rules.reader` (YAML to rules, checked), :mod:`~pubfetch.rules.ruleset` (lookups); every name is
importable from ``pubfetch.rules``.
"""

from pubfetch.rules.keys import (
    JOURNAL_KEYS,
    JOURNAL_REWRITE_PAIRS,
    JOURNAL_SELECTOR_KEYS,
    JOURNAL_TEST_KEYS,
    WEBPAGE_KEYS,
    WEBPAGE_TEST_KEYS,
    RuleError,
)
from pubfetch.rules.model import JournalRule, RuleTest, WebpageRule
from pubfetch.rules.ruleset import (
    BUILTIN_DIR,
    BUILTIN_PACKAGE,
    JOURNALS_FILE,
    WEBPAGES_FILE,
    RuleSource,
    ScrapingRules,
)
from pubfetch.rules.selectors import Selector, compile_selector, translate_jsoup
from pubfetch.rules.urls import UrlRewrite, compile_url_regex

__all__ = [
    "BUILTIN_DIR", "BUILTIN_PACKAGE", "JOURNALS_FILE", "JOURNAL_KEYS", "JOURNAL_REWRITE_PAIRS", "JOURNAL_SELECTOR_KEYS",
    "JOURNAL_TEST_KEYS", "WEBPAGES_FILE", "WEBPAGE_KEYS", "WEBPAGE_TEST_KEYS", "JournalRule", "RuleError", "RuleSource",
    "RuleTest", "ScrapingRules", "Selector", "UrlRewrite", "WebpageRule", "compile_selector", "compile_url_regex",
    "translate_jsoup",
]  # fmt: skip
