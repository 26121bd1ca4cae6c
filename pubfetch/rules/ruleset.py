"""The rule set in effect: the built-in files, then the user's, answering "which rule applies to this URL" (and to this
page, by its platform's fingerprint), which pages need JavaScript and after which the browser is restarted."""

from __future__ import annotations

import functools
import importlib.resources
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from bs4.element import Tag
from yaml.nodes import MappingNode

from pubfetch.rules.keys import RuleError
from pubfetch.rules.model import JournalRule, SiteEntry, UrlEntry, WebpageEntry, WebpageRule
from pubfetch.rules.page_index import PageIndex
from pubfetch.rules.reader import (
    compile_regex_or_fail,
    mapping_items,
    node_line,
    parse_site,
    parse_webpage_rule,
    regex_list,
    string_key,
    yaml_documents,
)

log = logging.getLogger(__name__)

BUILTIN_PACKAGE = "pubfetch.scraping_rules"
BUILTIN_DIR = Path(__file__).resolve().parent.parent.parent / "scraping_rules"
JOURNALS_FILE = "journals.yaml"
WEBPAGES_FILE = "webpages.yaml"


class RuleSource(NamedTuple):
    """One rule file's text as it was added to a :class:`ScrapingRules` (``kind``: "journals" or "webpages")."""

    kind: str
    text: str
    file: str
    lazy: bool


class ScrapingRules:
    """All scraping rules in effect: the built-in files, then the user's, with lookups by URL.

    Instances are immutable after loading (``add_*`` replace the internal tuples atomically, so a failed add leaves
    the rules as they were) and safe to share between threads.
    """

    def __init__(self) -> None:
        self._regexes: tuple[UrlEntry, ...] = ()
        self._sites: Mapping[str, SiteEntry] = MappingProxyType({})
        self._javascript: tuple[UrlEntry, ...] = ()
        self._restart: tuple[UrlEntry, ...] = ()
        self._webpages: tuple[WebpageEntry, ...] = ()
        self._sources: tuple[RuleSource, ...] = ()

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
        layer = _journals_layer(text, file, lazy)
        regexes = [*self._regexes, *layer.regexes]
        sites = {**self._sites, **layer.sites}
        _validate_journals(regexes, sites)
        self._regexes, self._sites = tuple(regexes), MappingProxyType(sites)
        self._javascript, self._restart = (*self._javascript, *layer.javascript), (*self._restart, *layer.restart)
        self._sources += (RuleSource("journals", text, file, lazy),)

    def add_webpages(self, text: str, file: str = "<webpages>", *, lazy: bool = False) -> None:
        """Parse a webpages YAML and add its rules after the current ones; RuleError if it is invalid.
        ``lazy``: as for :meth:`add_journals`."""
        self._webpages = (*self._webpages, *_webpages_layer(text, file, lazy))
        self._sources += (RuleSource("webpages", text, file, lazy),)

    # --- lookups ---------------------------------------------------------------------------------------------------

    def site(self, url: str) -> str | None:
        """The journal site name for a (final) URL: the site of the last matching regex."""
        entry = _last_match(self._regexes, url)
        return entry.value if entry is not None else None

    def journal_rule(self, url: str) -> JournalRule | None:
        """The rules for a journal page at its FINAL url (after redirects), or None when no regex matches."""
        site = self.site(url)
        return self._sites[site].rule if site is not None else None

    def page_rule(self, url: str, page: Tag, index: PageIndex | None = None) -> JournalRule | None:
        """The rule for a fetched page: by its final URL, else by the platform the page itself shows (the LAST site
        whose ``recognise`` selector matches, so a user file's platforms and specific platforms listed after generic
        ones win)."""
        return self.journal_rule(url) or self.recognise(page, index)

    def recognise(self, page: Tag, index: PageIndex | None = None) -> JournalRule | None:
        """The platform rule whose fingerprint (``recognise`` selector) the page carries, or None. ``index`` is the
        page's :class:`PageIndex` when the caller has one (built here otherwise: one walk for all the fingerprints)."""
        found = None
        for entry in self._sites.values():
            selector = entry.rule.recognise
            if selector is None or selector.empty:
                continue
            if index is None:
                index = PageIndex(page)
            if index.select_one(selector.compiled) is not None:
                found = entry.rule
        return found

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
    def sources(self) -> tuple[RuleSource, ...]:
        """The texts these rules were made of, in order: what another process rebuilds them from
        (:meth:`from_sources`), since compiled rules do not pickle."""
        return self._sources

    @classmethod
    def from_sources(cls, sources: Sequence[RuleSource]) -> ScrapingRules:
        """The rules made of ``sources`` (a :attr:`sources` of another process's rules)."""
        rules = cls()
        for source in sources:
            add = rules.add_journals if source.kind == "journals" else rules.add_webpages
            add(source.text, source.file, lazy=source.lazy)
        return rules

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


class _JournalsLayer(NamedTuple):
    """What one journals file adds to the rules before they are merged and cross-checked: its regexes, its sites
    (in file order; a site named twice is its last definition), its javascript and restart regexes."""

    regexes: tuple[UrlEntry, ...]
    sites: Mapping[str, SiteEntry]
    javascript: tuple[UrlEntry, ...]
    restart: tuple[UrlEntry, ...]


# A rule file's text is parsed once per process, whatever the number of rule sets made of it: every in-process command
# line run with a user's rule file, and every page worker (which rebuilds the run's rules from their texts), would
# otherwise parse the 90 KB of built-in YAML again, a tenth of a CPU-second each time. Keyed by the text itself, not
# the file's path and modification time, so an edited file is parsed anew even when it was rewritten within the same
# second at the same size. What is kept is immutable (frozen entries, read-only mappings, tuples), so rule sets share
# it; a file that fails to parse raises every time and is not kept.
_PARSED_FILES = 16


@functools.lru_cache(maxsize=_PARSED_FILES)
def _journals_layer(text: str, file: str, lazy: bool) -> _JournalsLayer:
    docs, construct = yaml_documents(text, file)
    if len(docs) > 4:
        raise RuleError(f"has {len(docs)} sections, at most 4 are allowed (regex, site, javascript, restart; "
                        "separated by ---)", file=file, line=node_line(docs[4]))
    docs += [None] * (4 - len(docs))
    regexes = []
    for key_node, value_node in mapping_items(docs[0], "the regex section (section 1)", file):
        regex = string_key(key_node, "a regex", file, construct)
        if isinstance(value_node, MappingNode):
            raise RuleError("the site name of a regex must be a string, not a mapping (the first section maps "
                            "regexes to site names; start a file that only defines sites with '---' twice)",
                            file=file, rule=regex, line=node_line(key_node))
        site = string_key(value_node, "the site name of a regex", file, construct, regex)
        line = node_line(key_node)
        regexes.append(UrlEntry(regex, compile_regex_or_fail(regex, file, line), site, file, line))
    sites = {}
    for key_node, value_node in mapping_items(docs[1], "the site section (section 2)", file):
        site = string_key(key_node, "a site name", file, construct)
        sites[site] = SiteEntry(parse_site(site, value_node, file, construct, lazy), node_line(key_node))
    javascript = regex_list(docs[2], "javascript", file, construct)
    restart = regex_list(docs[3], "restart", file, construct)
    return _JournalsLayer(tuple(regexes), MappingProxyType(sites), tuple(javascript), tuple(restart))


@functools.lru_cache(maxsize=_PARSED_FILES)
def _webpages_layer(text: str, file: str, lazy: bool) -> tuple[WebpageEntry, ...]:
    """The webpage rules of one webpages file, in file order (see :func:`_journals_layer` for why it is kept)."""
    docs, construct = yaml_documents(text, file)
    if len(docs) > 1:
        raise RuleError(f"has {len(docs)} sections, a webpages file has only one (no ---)", file=file,
                        line=node_line(docs[1]))
    entries = []
    for key_node, value_node in mapping_items(docs[0] if docs else None, "a webpages file", file):
        regex = string_key(key_node, "a regex", file, construct)
        pattern = compile_regex_or_fail(regex, file, node_line(key_node))
        entries.append(WebpageEntry(pattern, parse_webpage_rule(regex, value_node, file, construct, lazy)))
    return tuple(entries)


def _last_match(entries: Sequence[UrlEntry], url: str) -> UrlEntry | None:
    if not url:
        return None
    found = None
    for entry in entries:
        if entry.pattern.search(url):
            found = entry
    return found


def _validate_journals(regexes: Sequence[UrlEntry], sites: Mapping[str, SiteEntry]) -> None:
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
    """A built-in rule file: the checkout's scraping_rules/ directory beside the package when there is one (so that a
    source tree, or a second worktree of an editable install, reads the rules that belong to its code), else the
    installed package data."""
    path = BUILTIN_DIR / name
    if path.is_file():
        return path.read_text(encoding="utf-8")
    try:
        return importlib.resources.files(BUILTIN_PACKAGE).joinpath(name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        raise RuleError(f"built-in rule file not found (looked in {BUILTIN_DIR} and package {BUILTIN_PACKAGE})",
                        file=name) from None
