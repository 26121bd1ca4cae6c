"""The run report: one self-contained HTML page on a database or a run (``-report FILE``, :func:`report`).

It answers what a summary line cannot: which parts are final and from which sources, which publisher hosts gave full
texts and which did not, and which hosts were asked how often and refused (failures, HTTP 429 and 503). Publications
are read in one pass (:class:`Tally`), so a database of any size needs only its counts in memory; rendering
(:mod:`pubfetch.output.report_html`, plots by :mod:`pubfetch.output.report_plots`) works on the gathered
:class:`~pubfetch.output.report_data.ReportData` alone.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pubfetch.model.asked_parts import DECIDING_PARTS
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import ListPart, StringPart
from pubfetch.model.publication import Publication, default_args
from pubfetch.model.rich import RichList, RichName, RichText
from pubfetch.net.counts import HostCounts, RequestCounts
from pubfetch.net.urls import host_key
from pubfetch.outfiles import write_output_file
from pubfetch.output.report_data import NotFinal, PartCoverage, PublisherRow, Rejected, ReportData

if TYPE_CHECKING:
    from pubfetch.fetcher import BatchSummary
    from pubfetch.fetcher_args import FetcherArgs
    from pubfetch.store import Store

#: Publications not final listed by ID in the report; the rest are only counted.
NOT_FINAL_LISTED = 100
#: The parts counted for coverage: PubFetcher's ten, then the rich parts.
ALL_PARTS: tuple[PartName | RichName, ...] = (*PartName, *RichName)


class ReportUnavailable(Exception):
    """The report's plotting library is not installed; the message says how to install it."""


@dataclass
class Tally:
    """Counts publications one at a time (see the module docstring)."""

    args: FetcherArgs = field(default_factory=default_args)
    publications: int = 0
    final: int = 0
    part_status: dict[PartName | RichName, Counter[str]] = field(
        default_factory=lambda: {p: Counter() for p in ALL_PARTS})
    part_types: dict[PartName | RichName, Counter[PartType]] = field(
        default_factory=lambda: {p: Counter() for p in ALL_PARTS})
    visited: Counter[str] = field(default_factory=Counter)
    fulltext_here: Counter[str] = field(default_factory=Counter)
    fulltext_elsewhere: Counter[str] = field(default_factory=Counter)
    not_final: list[NotFinal] = field(default_factory=list)
    not_final_total: int = 0
    rejected: list[Rejected] = field(default_factory=list)
    rejected_total: int = 0

    def add(self, pub: Publication) -> None:
        self.publications += 1
        self._parts(pub)
        self._publishers(pub)
        self._rejected(pub)
        if pub.is_final(self.args):
            self.final += 1
        else:
            self._not_final(pub)

    def _parts(self, pub: Publication) -> None:
        for part in pub.parts():
            self.part_status[part.name][part_status(part, self.args)] += 1
            if not part.is_empty():
                self.part_types[part.name][part.type] += 1
        for name in RichName:
            rich = pub.rich(name)
            self.part_status[name][rich_status(rich)] += 1
            if not rich.is_empty():
                self.part_types[name][rich.type] += 1

    def _publishers(self, pub: Publication) -> None:
        hosts = publisher_hosts(pub)
        final = pub.fulltext.is_final(self.args)
        source = host_key(pub.fulltext.url) if final and pub.fulltext.url else ""
        for host in hosts:
            self.visited[host] += 1
            if final and host == source:
                self.fulltext_here[host] += 1
            elif final:
                self.fulltext_elsewhere[host] += 1

    def _not_final(self, pub: Publication) -> None:
        self.not_final_total += 1
        if len(self.not_final) < NOT_FINAL_LISTED:
            missing = tuple(p for p in DECIDING_PARTS if not pub.part(p).is_final(self.args))
            self.not_final.append(NotFinal(ids_text(pub), pub.title.content, missing, pub.state.fetch_exception))

    def _rejected(self, pub: Publication) -> None:
        self.rejected_total += len(pub.rejected_sites)
        for site in pub.rejected_sites[:max(0, NOT_FINAL_LISTED - len(self.rejected))]:
            claimed = " ".join(f"{label}:{value}" for label, value in (("PMID", site.pmid), ("PMCID", site.pmcid),
                                                                       ("DOI", site.doi)) if value) or site.title
            self.rejected.append(Rejected(ids_text(pub), site.url, claimed, site.reason.value))

    def coverage(self) -> list[PartCoverage]:
        return [PartCoverage(p, self.part_status[p]["final"], self.part_status[p]["partial"],
                             self.part_status[p]["missing"], dict(sorted(self.part_types[p].items(),
                                                                         key=lambda kv: kv[0].order)))
                for p in ALL_PARTS]

    def publisher_rows(self) -> list[PublisherRow]:
        hosts = sorted(self.visited, key=lambda h: (-self.visited[h], h))
        return [PublisherRow(h, self.visited[h], self.fulltext_here[h], self.fulltext_elsewhere[h],
                             self.visited[h] - self.fulltext_here[h] - self.fulltext_elsewhere[h]) for h in hosts]


def rich_status(part: RichList | RichText) -> str:
    """A rich part is usable whenever it is not empty; final when from a final source."""
    if part.is_empty():
        return "missing"
    return "final" if part.is_final() else "partial"


def part_status(part: StringPart | ListPart, args: FetcherArgs) -> str:
    """``final``, ``partial`` (usable but not from a final source) or ``missing`` (empty or not usable)."""
    if not part.is_usable(args):
        return "missing"
    return "final" if part.is_final(args) else "partial"


def ids_text(pub: Publication) -> str:
    """``PMID:1 PMCID:PMC2 DOI:10.3/x``, the IDs a publication has."""
    return " ".join(f"{label}:{value}" for label, value in (("PMID", pub.pmid.content), ("PMCID", pub.pmcid.content),
                                                            ("DOI", pub.doi.content)) if value)


def publisher_hosts(pub: Publication) -> list[str]:
    """The distinct hosts of the pages read for a publication (publisher pages and links followed), in visit order."""
    return list(dict.fromkeys(h for h in (host_key(s.url) for s in pub.visited_sites if s.url) if h))


def gather(publications: Iterable[Publication], *, args: FetcherArgs | None = None,
           requests: RequestCounts | Mapping[str, HostCounts] | None = None, summary: BatchSummary | None = None,
           source: str = "", title: str = "pubfetch report") -> ReportData:
    """Read the publications once and gather what the report shows."""
    tally = Tally(args or default_args())
    for pub in publications:
        tally.add(pub)
    if requests is None and summary is not None:
        requests = summary.requests
    hosts = requests.by_host() if isinstance(requests, RequestCounts) else (
        dict(requests) if requests is not None else None)
    return ReportData(source=source, generated=datetime.now(UTC), publications=tally.publications, final=tally.final,
                      parts=tally.coverage(), publishers=tally.publisher_rows(), not_final=tally.not_final,
                      not_final_total=tally.not_final_total, requests=hosts, summary=summary, title=title,
                      rejected=tally.rejected, rejected_total=tally.rejected_total)


def stored_publications(store: Store) -> Iterator[Publication]:
    """Every publication of a database, one at a time."""
    for ids in store.publication_ids():
        pub = store.get_publication(ids)
        if pub is not None:
            yield pub


def check_available() -> None:
    """Raise :class:`ReportUnavailable` unless matplotlib (the ``report`` extra) can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ReportUnavailable("the report needs matplotlib: pip install 'pubfetch[report]'") from None


def report(path: str | os.PathLike[str], publications: Iterable[Publication] | None = None, *,
           db: str | os.PathLike[str] | Store | None = None, summary: BatchSummary | None = None,
           requests: RequestCounts | Mapping[str, HostCounts] | None = None, args: FetcherArgs | None = None,
           title: str = "pubfetch report") -> Path:
    """Write the report page on ``publications`` or on every publication of the database ``db`` to ``path``.

    ``summary`` (a :class:`~pubfetch.fetcher.BatchSummary` filled by ``fetch_many``) adds the run's counts and its
    requests per host; ``requests`` gives the per-host counters directly (an ``HttpClient.counts``). ``args``
    decides finality (default PubFetcher's). Raises :class:`ReportUnavailable` without matplotlib, ``ValueError``
    unless exactly one of ``publications`` and ``db`` is given, ``StoreError`` for a database that cannot be read.
    """
    out = Path(path)
    page = report_page(publications, db=db, summary=summary, requests=requests, args=args, title=title)
    write_output_file(out, lambda f: f.write(page))
    return out


def report_page(publications: Iterable[Publication] | None = None, *,
                db: str | os.PathLike[str] | Store | None = None, summary: BatchSummary | None = None,
                requests: RequestCounts | Mapping[str, HostCounts] | None = None, args: FetcherArgs | None = None,
                title: str = "pubfetch report") -> str:
    """The HTML of :func:`report`'s page, for a caller that writes it somewhere else (standard output)."""
    if (publications is None) == (db is None):
        raise ValueError("report() needs exactly one of publications and db")
    check_available()
    from pubfetch.output.report_html import render_page
    from pubfetch.store import Store, open_store

    with ExitStack() as stack:
        if isinstance(db, Store):
            publications, source = stored_publications(db), "the database"
        elif db is not None:
            store = stack.enter_context(open_store(db, readonly=True))
            publications, source = stored_publications(store), f"database {os.fspath(db)}"
        else:
            source = "the publications given"
        data = gather(publications or (), args=args, requests=requests, summary=summary, source=source, title=title)
    return render_page(data)
