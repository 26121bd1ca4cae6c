"""The pipeline's filters: on IDs before content is got, and on content after (or, with ``--pre-filter``, while).

Each option becomes a :class:`Filter`: a label for the log, the entry kinds it applies to and a test that says
"keep". Semantics are PubFetcher's (PubFetcherMethods.contentFilter):

* regular expressions match anywhere (``find``);
* "-more"/"-less" are strict for counts and sizes, inclusive for times;
* list fields (corresponding authors, visited sites): the positive form keeps an entry when ANY item matches, the
  ``-not-`` form when NO item matches; ``-...-empty`` keeps it when all items are empty;
* part filters test every part listed: the positive form keeps a publication when ALL listed parts pass, the
  ``-not-`` form when ALL fail;
* hosts are compared lower-cased without ``www.``.

One deliberate difference: ``-not-visited-size`` keeps publications whose number of visited sites is none of the
given sizes, as documented; PubFetcher's code kept those with one of them (a copy-paste slip).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from operator import attrgetter
from typing import Any, Literal, TypeVar

from pubfetch.cli.errors import Unavailable
from pubfetch.cli.oneoff import doi_registrant_as_given
from pubfetch.cli.parser import ParsedArgs
from pubfetch.cli.spec import TimedPattern
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import ListPart, MeshTerm, MinedTerm, PartName, PartType, Publication, StringPart, Webpage
from pubfetch.output.summary import url_host
from pubfetch.output.text import publication_plain_text, webpage_plain_text
from pubfetch.store import Store, open_store

log = logging.getLogger(__name__)

ALL = frozenset({"publications", "webpages", "docs"})
PUB = frozenset({"publications"})
WEB = frozenset({"webpages", "docs"})

T = TypeVar("T")


@dataclass(frozen=True)
class Filter:
    label: str
    kinds: frozenset[str]
    keep: Callable[[Any], bool]


def hosts(values: Iterable[str]) -> frozenset[str]:
    """Hosts as compared: lower-cased, without a leading ``www.``."""
    return frozenset(v.strip().lower().removeprefix("www.") for v in values)


def apply(filters: list[Filter], items: list[T], kind: str, what: str) -> list[T]:
    """Run each filter applying to ``kind`` in turn, logging the counts before and after (as PubFetcher does)."""
    for f in filters:
        if kind not in f.kinds or not items:
            continue
        before = len(items)
        items = [i for i in items if f.keep(i)]
        log.info("Filter %s with %s: before %d, after %d", what, f.label, before, len(items))
    return items


def accepts(filters: list[Filter], item: Any, kind: str) -> bool:
    """Whether one entry passes every filter of its kind (``--pre-filter``)."""
    return all(f.keep(item) for f in filters if kind in f.kinds)


class _Builder:
    """Collects filters from the options given, with one helper per family of options."""

    def __init__(self, args: ParsedArgs) -> None:
        self.args = args
        self.filters: list[Filter] = []

    def add(self, label: str, kinds: frozenset[str], keep: Callable[[Any], bool]) -> None:
        self.filters.append(Filter(label, kinds, keep))

    def flags(self, name: str, kinds: frozenset[str], test: Callable[[Any], bool]) -> None:
        if self.args.flag(name):
            self.add(name, kinds, test)
        if self.args.flag(f"not-{name}"):
            self.add(f"not {name}", kinds, lambda e: not test(e))

    def regex(self, name: str, kinds: frozenset[str], field: Callable[[Any], str]) -> None:
        for negate in (False, True):
            rx: TimedPattern | None = self.args.get(f"{'not-' if negate else ''}{name}")
            if rx is not None:
                def keep(e: Any, rx: TimedPattern = rx, negate: bool = negate) -> bool:
                    return rx.search(field(e)) != negate
                self.add(f"{name} {'not ' if negate else ''}matching {rx.pattern}", kinds, keep)

    def empty(self, name: str, kinds: frozenset[str], field: Callable[[Any], str]) -> None:
        self.flags(f"{name}-empty", kinds, lambda e: not field(e))

    def host(self, name: str, kinds: frozenset[str], field: Callable[[Any], str]) -> None:
        for negate in (False, True):
            values = self.args.get(f"{'not-' if negate else ''}{name}")
            if values is not None:
                wanted = hosts(values)

                def keep(e: Any, wanted: frozenset[str] = wanted, negate: bool = negate) -> bool:
                    return (url_host(field(e)) in wanted) != negate
                self.add(f"{name} {'not ' if negate else ''}in {sorted(wanted)}", kinds, keep)

    def values(self, name: str, kinds: frozenset[str], field: Callable[[Any], int], inclusive: bool = False) -> None:
        """``name`` and ``not-name`` lists, ``name-more`` and ``name-less`` bounds (inclusive for times)."""
        for negate in (False, True):
            wanted = self.args.get(f"{'not-' if negate else ''}{name}")
            if wanted is not None:
                allowed = frozenset(wanted)

                def keep(e: Any, allowed: frozenset[int] = allowed, negate: bool = negate) -> bool:
                    return (field(e) in allowed) != negate
                self.add(f"{name} {'not ' if negate else ''}in {sorted(allowed)}", kinds, keep)
        more, less = self.args.get(f"{name}-more"), self.args.get(f"{name}-less")
        if more is not None:
            self.add(f"{name} {'>=' if inclusive else '>'} {more}", kinds,
                     (lambda e: field(e) >= more) if inclusive else (lambda e: field(e) > more))
        if less is not None:
            self.add(f"{name} {'<=' if inclusive else '<'} {less}", kinds,
                     (lambda e: field(e) <= less) if inclusive else (lambda e: field(e) < less))

    def any_item(self, name: str, items: Callable[[Any], list], test_of: Callable[[Any], Callable[[Any], bool]],
                 negatable: bool = True) -> None:
        """Publications with ANY item passing (``name``), or with NO item passing (``not-name``)."""
        for negate in ((False, True) if negatable else (False,)):
            value = self.args.get(f"{'not-' if negate else ''}{name}")
            if value is None or value is False:
                continue
            test = test_of(value)

            def keep(p: Any, test: Callable[[Any], bool] = test, negate: bool = negate) -> bool:
                return any(test(i) for i in items(p)) != negate
            self.add(f"{'not ' if negate else ''}{name}", PUB, keep)


def _list_text(item: object) -> str:
    return item.term if isinstance(item, MeshTerm | MinedTerm) else str(item)


def _content_matches(rx: TimedPattern, part: StringPart | ListPart) -> bool:
    if isinstance(part, StringPart):
        return rx.search(part.content)
    return any(rx.search(_list_text(i)) for i in part.items)


def _worse(type_: PartType, than: PartType) -> bool:
    return not (type_.is_equivalent(than) or type_.is_better_than(than))


def _part_filters(b: _Builder, fa: FetcherArgs) -> None:
    """Part filters: each listed part must pass (positive form) or fail (``-not-`` form)."""
    args = b.args

    def add(name: str, parts: list[PartName], test: Callable[[StringPart | ListPart], bool], negate: bool) -> None:
        chosen = tuple(dict.fromkeys(parts))
        label = f"{name} of parts {[p.value for p in chosen]}"
        b.add(label, PUB, lambda p: all(test(p.part(n)) != negate for n in chosen))

    simple: dict[str, Callable[[StringPart | ListPart], bool]] = {
        "part-empty": lambda part: part.is_empty(),
        "part-usable": lambda part: part.is_usable(fa),
        "part-final": lambda part: part.is_final(fa),
    }
    for name, test in simple.items():
        for negate in (False, True):
            parts = args.get(f"{'not-' if negate else ''}{name}")
            if parts is not None:
                add(f"{'not ' if negate else ''}{name}", parts, test, negate)

    tests: dict[str, tuple[bool, Callable[[Any], Callable[[StringPart | ListPart], bool]]]] = {
        "part-content": (False, lambda rx: lambda part: _content_matches(rx, part)),
        "not-part-content": (True, lambda rx: lambda part: _content_matches(rx, part)),
        "part-size": (False, lambda ns: lambda part: part.size in ns),
        "not-part-size": (True, lambda ns: lambda part: part.size in ns),
        "part-size-more": (False, lambda n: lambda part: part.size > n),
        "part-size-less": (False, lambda n: lambda part: part.size < n),
        "part-type": (False, lambda ts: lambda part: part.type in ts),
        "not-part-type": (True, lambda ts: lambda part: part.type in ts),
        "part-type-more": (False, lambda t: lambda part: part.type.is_better_than(t)),
        "part-type-less": (False, lambda t: lambda part: _worse(part.type, t)),
        "part-type-final": (False, lambda _: lambda part: part.type.is_final),
        "not-part-type-final": (True, lambda _: lambda part: part.type.is_final),
        "part-type-pdf": (False, lambda _: lambda part: part.type.is_pdf),
        "not-part-type-pdf": (True, lambda _: lambda part: part.type.is_pdf),
        "part-url": (False, lambda rx: lambda part: bool(rx.search(part.url))),
        "not-part-url": (True, lambda rx: lambda part: bool(rx.search(part.url))),
        "part-url-host": (False, lambda hs: lambda part: url_host(part.url) in hosts(hs)),
        "not-part-url-host": (True, lambda hs: lambda part: url_host(part.url) in hosts(hs)),
        "part-time-more": (False, lambda t: lambda part: part.timestamp >= t),
        "part-time-less": (False, lambda t: lambda part: part.timestamp <= t),
    }
    for name, (negate, make) in tests.items():
        value = args.get(name)
        if value is not None and value is not False:
            add(name.replace("not-", "not ", 1), args.get(f"{name}-part"), make(value), negate)


def _author_field_matches(rx: TimedPattern, field: str) -> Callable[[Any], bool]:
    return lambda a: rx.search(getattr(a, field))


def _no_author_has(p: Publication, field: str) -> bool:
    return all(not getattr(a, field) for a in p.corresp_author)


def _some_author_has(p: Publication, field: str) -> bool:
    return any(getattr(a, field) for a in p.corresp_author)


def _corresp_filters(b: _Builder) -> None:
    for field in ("name", "orcid", "email", "phone", "uri"):
        name = f"corresp-author-{field}"
        b.any_item(name, lambda p: p.corresp_author, partial(_author_field_matches, field=field))
        if b.args.flag(f"{name}-empty"):
            b.add(f"{name} empty", PUB, partial(_no_author_has, field=field))
        if b.args.flag(f"not-{name}-empty"):
            b.add(f"{name} not empty", PUB, partial(_some_author_has, field=field))
    b.values("corresp-author-size", PUB, lambda p: len(p.corresp_author))


def _visited_filters(b: _Builder) -> None:
    def sites(p: Publication) -> list:
        return p.visited_sites
    b.any_item("visited", sites, lambda rx: lambda s: bool(rx.search(s.url)))
    b.any_item("visited-host", sites, lambda hs: lambda s: url_host(s.url) in hosts(hs))
    b.any_item("visited-type", sites, lambda ts: lambda s: s.type in ts)
    b.any_item("visited-type-more", sites, lambda t: lambda s: s.type.is_better_than(t), negatable=False)
    b.any_item("visited-type-less", sites, lambda t: lambda s: _worse(s.type, t), negatable=False)
    b.any_item("visited-type-final", sites, lambda _: lambda s: s.type.is_final)
    b.any_item("visited-type-pdf", sites, lambda _: lambda s: s.type.is_pdf)
    b.any_item("visited-from", sites, lambda rx: lambda s: bool(rx.search(s.from_url)))
    b.any_item("visited-from-host", sites, lambda hs: lambda s: url_host(s.from_url) in hosts(hs))
    b.any_item("visited-time-more", sites, lambda t: lambda s: s.timestamp >= t, negatable=False)
    b.any_item("visited-time-less", sites, lambda t: lambda s: s.timestamp <= t, negatable=False)
    b.values("visited-size", PUB, lambda p: len(p.visited_sites))


def _webpage_filters(b: _Builder) -> None:
    b.flags("broken", WEB, lambda w: w.is_broken())
    b.regex("start-url", WEB, lambda w: w.start_url)
    b.host("start-url-host", WEB, lambda w: w.start_url)
    b.regex("final-url", WEB, lambda w: w.final_url)
    b.host("final-url-host", WEB, lambda w: w.final_url)
    b.empty("final-url", WEB, lambda w: w.final_url)
    b.regex("content-type", WEB, lambda w: w.content_type)
    b.empty("content-type", WEB, lambda w: w.content_type)
    b.values("status-code", WEB, lambda w: w.status_code)
    b.regex("title", WEB, lambda w: w.title)
    b.values("title-size", WEB, lambda w: len(w.title))
    b.regex("content", WEB, lambda w: w.content)
    b.values("content-size", WEB, lambda w: len(w.content))
    b.values("content-time", WEB, lambda w: w.content_time, inclusive=True)
    b.regex("license", WEB, lambda w: w.license)
    b.empty("license", WEB, lambda w: w.license)
    b.regex("language", WEB, lambda w: w.language)
    b.empty("language", WEB, lambda w: w.language)


def _plain_text(entry: Publication | Webpage) -> str:
    return publication_plain_text(entry) if isinstance(entry, Publication) else webpage_plain_text(entry)


def content_filters(args: ParsedArgs, fa: FetcherArgs) -> list[Filter]:
    """The content filters given on the command line, in PubFetcher's order."""
    if args.flag("has-scrape") or args.flag("not-has-scrape"):
        raise Unavailable("-has-scrape" if args.flag("has-scrape") else "-not-has-scrape", "the scraping rules")
    b = _Builder(args)
    b.values("fetch-time", ALL, lambda e: e.state.fetch_time, inclusive=True)
    b.values("retry-counter", ALL, lambda e: e.state.retry_counter)
    b.flags("fetch-exception", ALL, lambda e: e.state.fetch_exception)
    b.flags("empty", ALL, lambda e: e.is_empty())
    b.flags("usable", ALL, lambda e: e.is_usable(fa))
    b.flags("final", ALL, lambda e: e.is_final(fa))
    b.flags("totally-final", PUB, lambda p: p.is_totally_final(fa))
    _part_filters(b, fa)
    b.flags("oa", PUB, lambda p: p.oa)
    b.flags("preprint", PUB, lambda p: p.preprint)
    b.flags("retracted", PUB, lambda p: p.retracted)
    b.regex("journal-title", PUB, lambda p: p.journal_title)
    b.empty("journal-title", PUB, lambda p: p.journal_title)
    b.values("pub-date", PUB, lambda p: p.pub_date, inclusive=True)
    b.values("citations-count", PUB, lambda p: p.citations_count)
    b.values("citations-timestamp", PUB, lambda p: p.citations_timestamp, inclusive=True)
    _corresp_filters(b)
    _visited_filters(b)
    b.any_item("rejected", lambda p: p.rejected_sites, lambda rx: lambda s: bool(rx.search(s.url)))
    b.any_item("unverified", lambda p: p.unverified_sites, lambda rx: lambda s: bool(rx.search(s.url)))
    _webpage_filters(b)
    b.regex("grep", ALL, _plain_text)
    return b.filters


def _has_attribute(entry: Any, name: str) -> bool:
    return bool(getattr(entry, name))


def _in_db(entry: Any, db: Store, kind: Literal["webpages", "docs"] | None, negate: bool) -> bool:
    """Whether the ID (kind None) or the page URL is in ``db``, unless ``negate``."""
    found = db.contains_publication(entry) if kind is None else db.contains_page(kind, entry)
    return found != negate


def id_filters(args: ParsedArgs, stack: ExitStack) -> list[Filter]:
    """The ID filters given; ``-in-db``/``-not-in-db`` databases are opened on ``stack`` and stay open while it does."""
    b = _Builder(args)
    for id_name in ("pmid", "pmcid", "doi"):
        b.flags(f"has-{id_name}", PUB, partial(_has_attribute, name=id_name))
        b.regex(id_name, PUB, attrgetter(id_name))
        b.regex(f"{id_name}-url", PUB, attrgetter(f"{id_name}_url"))
    for negate in (False, True):
        codes = args.get(f"{'not-' if negate else ''}doi-registrant")
        if codes is not None:
            wanted = frozenset(codes)

            def registrant(i: Any, wanted: frozenset[str] = wanted, negate: bool = negate) -> bool:
                return (doi_registrant_as_given(i.doi) in wanted) != negate
            b.add(f"DOI registrant {'not ' if negate else ''}in {sorted(wanted)}", PUB, registrant)
    b.regex("url", WEB, lambda u: u)
    b.host("url-host", WEB, lambda u: u)
    for negate in (False, True):
        path = args.get(f"{'not-' if negate else ''}in-db")
        if path is None:
            continue
        db = stack.enter_context(open_store(path, readonly=True))
        label = f"{'not ' if negate else ''}in database {path}"
        b.add(label, PUB, partial(_in_db, db=db, kind=None, negate=negate))
        b.add(label, frozenset({"webpages"}), partial(_in_db, db=db, kind="webpages", negate=negate))
        b.add(label, frozenset({"docs"}), partial(_in_db, db=db, kind="docs", negate=negate))
    return b.filters
