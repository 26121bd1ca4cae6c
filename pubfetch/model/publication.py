"""A publication: ten parts with provenance, bibliographic data, and the merge rules that decide what may overwrite
what.

Resources never assign parts directly; they offer content through the ``set_*`` methods, which accept it only when the
part is not final yet and the offer is better (a better type, or among final types, longer content). This is what lets
any number of sources be merged in any batch order and give the same publication as PubFetcher.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pubfetch import ids as idmod
from pubfetch.ids import PublicationIds
from pubfetch.model.entry import FetchState
from pubfetch.model.identity import Reason, title_similarity
from pubfetch.model.identity_sites import RejectedSite, UnverifiedSite
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import Author, CorrespAuthor, ListPart, MeshTerm, MinedTerm, StringPart, VisitedSite
from pubfetch.model.retraction import RETRACTED_BY, RetractionFlags, RetractionSource, RetractionVerdict, says_retracted
from pubfetch.model.rich import RichList, RichName, RichText, new_part
from pubfetch.model.timefmt import Clock, date_human, date_to_ms, instant_human, now_ms
from pubfetch.textutil import strip_html

if TYPE_CHECKING:
    from pubfetch.fetcher_args import FetcherArgs

log = logging.getLogger(__name__)

_VERSIONED = re.compile(r"^[._-][0-9]+\Z")
F1000_DOI = re.compile(r"^10.12688/F1000RESEARCH\..+\Z")
_ZENODO = re.compile(r"^https?://(www\.)?zenodo\.org/.+$")

_REPR_TITLE = 60
#: (JSON name, attribute) of the rich parts and the JSON names of the ten parts, in JSON order, looked up once: every
#: entry serialised walks them, and an enum member's ``value`` is a descriptor call
_RICH_KEYS = tuple((name.value, name.attribute) for name in RichName)
_PART_KEYS = tuple(name.value for name in PartName)

BIBLIO_FIELDS = ("volume", "issue", "pages", "issn", "eissn", "publisher")


def default_args() -> FetcherArgs:
    from pubfetch.fetcher_args import FetcherArgs

    return FetcherArgs()


def _same_work(old: str, new: str, url: str) -> bool:
    """IDs that differ only by a version suffix, two F1000 DOIs, or IDs read on zenodo keep the old ID (PubFetcher)."""
    return (
        (old.startswith(new) and bool(_VERSIONED.match(old[len(new):])))
        or (new.startswith(old) and bool(_VERSIONED.match(new[len(old):])))
        or (bool(F1000_DOI.match(old)) and bool(F1000_DOI.match(new)))
        or bool(_ZENODO.match(url or ""))
    )


@dataclass
class Publication:
    pmid: StringPart = field(default_factory=lambda: StringPart(PartName.pmid))
    pmcid: StringPart = field(default_factory=lambda: StringPart(PartName.pmcid))
    doi: StringPart = field(default_factory=lambda: StringPart(PartName.doi))
    title: StringPart = field(default_factory=lambda: StringPart(PartName.title))
    keywords: ListPart = field(default_factory=lambda: ListPart(PartName.keywords))
    mesh: ListPart = field(default_factory=lambda: ListPart(PartName.mesh))
    efo: ListPart = field(default_factory=lambda: ListPart(PartName.efo))
    go: ListPart = field(default_factory=lambda: ListPart(PartName.go))
    abstract: StringPart = field(default_factory=lambda: StringPart(PartName.theAbstract))
    fulltext: StringPart = field(default_factory=lambda: StringPart(PartName.fulltext))
    state: FetchState = field(default_factory=FetchState)
    oa: bool = False
    preprint: bool = False
    journal_title: str = ""
    pub_date: int = -1
    citations_count: int = -1
    citations_timestamp: int = -1
    corresp_author: list[CorrespAuthor] = field(default_factory=list)
    visited_sites: list[VisitedSite] = field(default_factory=list)
    authors: list[Author] = field(default_factory=list)
    volume: str = ""
    issue: str = ""
    pages: str = ""
    issn: str = ""
    eissn: str = ""
    publisher: str = ""
    pub_types: list[str] = field(default_factory=list)
    #: each retraction source's latest verdict (:mod:`pubfetch.model.retraction`); ``retracted`` while any says so
    retraction: RetractionFlags = field(default_factory=RetractionFlags)
    funding: RichList = field(default_factory=lambda: RichList(RichName.funding))
    #: URLs, DOIs, accessions, RRIDs, trial registrations and grant IDs in the text (:mod:`pubfetch.model.links`)
    links: RichList = field(default_factory=lambda: RichList(RichName.links))
    #: text-mined terms of the annotation types asked for beyond EFO and GO (:mod:`pubfetch.model.mined_terms`)
    mined_terms: RichList = field(default_factory=lambda: RichList(RichName.mined_terms))
    updates: RichList = field(default_factory=lambda: RichList(RichName.updates))
    references: RichList = field(default_factory=lambda: RichList(RichName.references))
    sections: RichList = field(default_factory=lambda: RichList(RichName.sections))
    license: RichText = field(default_factory=lambda: RichText(RichName.license))
    relations: RichList = field(default_factory=lambda: RichList(RichName.relations))
    tables: RichList = field(default_factory=lambda: RichList(RichName.tables))
    figures: RichList = field(default_factory=lambda: RichList(RichName.figures))
    supplements: RichList = field(default_factory=lambda: RichList(RichName.supplements))
    statements: RichList = field(default_factory=lambda: RichList(RichName.statements))
    #: pages and PDFs not merged because they are another paper's (:mod:`pubfetch.model.identity`)
    rejected_sites: list[RejectedSite] = field(default_factory=list)
    #: pages and PDFs merged without anything to check them by, until a title from another source settles them
    unverified_sites: list[UnverifiedSite] = field(default_factory=list)
    clock: Clock = field(default=now_ms, repr=False, compare=False)
    #: titles offered since an unverified site was merged, by sources that are not unverified: (title, type, URL);
    #: not stored (what a fetch offered settles the unverified sites at its end, and is offered again when a dropped
    #: site's title had kept it out)
    title_offers: list[tuple[str, PartType, str]] = field(default_factory=list, repr=False, compare=False)
    #: what unverified sites gave that could not be dropped again (IDs and set-once fields), by URL, held until the
    #: site is confirmed (:func:`pubfetch.model.merge.apply_held`); not stored: a site still unverified when its fetch
    #: ends keeps only its parts (docs/rules.md, "Whose page is it")
    held_fields: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict, repr=False, compare=False)
    #: sites rejected in this fetch (not stored: the run summary counts them)
    new_rejections: int = field(default=0, repr=False, compare=False)

    def __repr__(self) -> str:
        """One short line (IDs, the start of the title, which parts are final under the default parameters): the full
        text would make the dataclass repr tens of kilobytes in a notebook or a log."""
        args = default_args()
        ids = ", ".join(p.content for p in (self.pmid, self.pmcid, self.doi) if p.content) or "no ID"
        title = self.title.content if len(self.title.content) <= _REPR_TITLE else \
            self.title.content[:_REPR_TITLE - 3] + "..."
        final = [p.name.value.removeprefix("the").lower() for p in self._content_parts()
                 if not p.is_empty() and p.is_final(args)]
        return f"<Publication {ids}: {title!r}; final: {' '.join(final) or 'none'}>"

    # --- parts --------------------------------------------------------------------------------------------------------

    def part(self, name: PartName) -> StringPart | ListPart:
        return getattr(self, name.value)

    def parts(self, names: Iterable[PartName] | None = None) -> list[StringPart | ListPart]:
        return [self.part(n) for n in (names if names is not None else PartName)]

    @property
    def ids(self) -> PublicationIds:
        return PublicationIds(self.pmid.content, self.pmcid.content, self.doi.content,
                              self.pmid.url, self.pmcid.url, self.doi.url)

    def rich(self, name: RichName) -> RichList | RichText:
        """A rich part (funding, links, mined terms, updates, references, sections, license, tables, figures,
        supplements, statements) by name."""
        return getattr(self, name.attribute)

    def id_count(self) -> int:
        return sum(1 for p in (self.pmid, self.pmcid, self.doi) if p.content)

    def reset(self) -> None:
        """Empty every content part but keep the IDs: used when an ID changed and the publication is fetched anew."""
        for name in (PartName.title, PartName.keywords, PartName.mesh, PartName.efo, PartName.go, PartName.theAbstract,
                     PartName.fulltext):
            setattr(self, name.value, (ListPart if name.is_list else StringPart)(name))
        for rich in RichName:
            setattr(self, rich.attribute, new_part(rich))
        self.retraction = RetractionFlags()  # it was said of the paper the old ID named
        self.unverified_sites.clear()  # the parts they gave are gone
        self.title_offers.clear()
        self.held_fields.clear()

    # --- finality -----------------------------------------------------------------------------------------------------

    def _content_parts(self) -> tuple:
        return (self.title, self.keywords, self.mesh, self.efo, self.go, self.abstract, self.fulltext)

    def is_empty(self) -> bool:
        return all(p.is_empty() for p in self._content_parts())

    def is_usable(self, args: FetcherArgs) -> bool:
        return any(p.is_usable(args) for p in self._content_parts())

    def is_final(self, args: FetcherArgs) -> bool:
        return self.title.is_final(args) and self.abstract.is_final(args) and self.fulltext.is_final(args)

    def is_totally_final(self, args: FetcherArgs) -> bool:
        return all(p.is_final(args) for p in self.parts())

    def status(self, args: FetcherArgs) -> str:
        if self.is_empty() and not self.is_usable(args):
            return "empty"
        if not self.is_usable(args):
            return "non-usable"
        if not self.is_final(args):
            return "non-final"
        return "final" if not self.is_totally_final(args) else "totally final"

    def problems(self, args: FetcherArgs | None = None) -> list[str]:
        """What keeps this publication from being final, one short sentence each (empty when it is final)."""
        args = args or default_args()
        found = []
        if self.state.fetch_exception:
            found.append("a transient failure (fetchException) stopped the fetch; fetching again later may complete it")
        for part in (self.title, self.abstract, self.fulltext):
            name = part.name.value.removeprefix("the").lower()
            if part.is_empty():
                found.append(f"no {name}")
            elif not part.is_final(args):
                found.append(f"{name} not final (only from {part.type.value})")
        return found

    def lowest_type(self) -> PartType:
        """The worst type among title, keywords, abstract and full text: a link is worth following only if better."""
        lowest = self.title.type
        for p in (self.keywords, self.abstract, self.fulltext):
            if lowest.is_better_than(p.type):
                lowest = p.type
        return lowest

    # --- merge rules --------------------------------------------------------------------------------------------------

    def _set_id(self, part: StringPart, content: str | None, type_: PartType, url: str, args: FetcherArgs,
                valid: Any) -> bool:
        if content is None or not content.strip():
            return False
        content = content.strip()
        if not valid(content):
            log.warning("ignoring invalid %s '%s' from %s", part.name.value, content, url)
            return False
        if part.content and part.content != content:
            log.warning("old %s %s differs from new %s from %s (%s)", part.name.value, part.content, content, url,
                        type_.value)
            if _same_work(part.content, content, url):
                content = part.content
        if not part.is_final(args) and type_.is_better_than(part.type):
            part.set(content, type_, url, self.clock)
            return True
        return False

    def set_pmid(self, pmid: str | None, type_: PartType, url: str, args: FetcherArgs) -> bool:
        return self._set_id(self.pmid, pmid, type_, url, args, idmod.is_pmid)

    def set_pmcid(self, pmcid: str | None, type_: PartType, url: str, args: FetcherArgs) -> bool:
        return self._set_id(self.pmcid, pmcid, type_, url, args, idmod.is_pmcid)

    def set_doi(self, doi: str | None, type_: PartType, url: str, args: FetcherArgs) -> bool:
        norm = idmod.normalise_doi(doi.strip()) if doi else doi
        if norm and " " in norm:
            log.warning("ignoring DOI with a space '%s' from %s", norm, url)
            return False
        return self._set_id(self.doi, norm, type_, url, args, idmod.is_doi)

    def _accepts(self, part: StringPart | ListPart, size: int, type_: PartType, args: FetcherArgs) -> bool:
        return (not part.is_final(args) and size > 0
                and ((type_.is_final and part.size < size) or type_.is_better_than(part.type)))

    def _set_string(self, part: StringPart, content: str | None, type_: PartType, url: str, args: FetcherArgs,
                    clean: bool) -> bool:
        if content is None:
            return False
        content = strip_html(content) if clean else content.strip()
        if self._accepts(part, len(content), type_, args):
            part.set(content, type_, url, self.clock)
            return True
        return False

    def _set_list(self, part: ListPart, items: list, type_: PartType, url: str, args: FetcherArgs) -> bool:
        if self._accepts(part, len(items), type_, args):
            part.set(items, type_, url, self.clock)
            return True
        return False

    def set_title(self, title: str | None, type_: PartType, url: str, args: FetcherArgs, clean: bool = False) -> bool:
        if title and self.unverified_sites and not any(s.url == url for s in self.unverified_sites):
            self.title_offers.append((title, type_, url))
        return self._set_string(self.title, title, type_, url, args, clean)

    def set_abstract(self, text: str | None, type_: PartType, url: str, args: FetcherArgs, clean: bool = False) -> bool:
        return self._set_string(self.abstract, text, type_, url, args, clean)

    def set_fulltext(self, text: str | None, type_: PartType, url: str, args: FetcherArgs) -> bool:
        return self._set_string(self.fulltext, text, type_, url, args, False)

    def set_keywords(self, keywords: Iterable[str | None], type_: PartType, url: str, args: FetcherArgs,
                     clean: bool = False) -> bool:
        cleaned = ((strip_html(k) if clean else k.strip()) for k in keywords if k is not None)
        return self._set_list(self.keywords, list(dict.fromkeys(k for k in cleaned if k)), type_, url, args)

    def set_mesh(self, terms: Iterable[MeshTerm | None], type_: PartType, url: str, args: FetcherArgs) -> bool:
        return self._set_list(self.mesh, [t for t in terms if t is not None and t.term], type_, url, args)

    def set_efo(self, terms: Iterable[MinedTerm | None], type_: PartType, url: str, args: FetcherArgs) -> bool:
        return self._set_list(self.efo, [t for t in terms if t is not None and t.term], type_, url, args)

    def set_go(self, terms: Iterable[MinedTerm | None], type_: PartType, url: str, args: FetcherArgs) -> bool:
        return self._set_list(self.go, [t for t in terms if t is not None and t.term], type_, url, args)

    # --- set-once fields ----------------------------------------------------------------------------------------------

    def set_journal_title(self, title: str | None) -> None:
        if not self.journal_title and title:
            self.journal_title = title.strip()

    def set_pub_date(self, iso_date: str | None) -> bool:
        """Set once from ``YYYY-MM-DD``; other forms are logged and ignored, as in PubFetcher."""
        if self.pub_date >= 0 or not iso_date:
            return False
        ms = date_to_ms(iso_date)
        if ms is None:
            log.warning("could not set publication date from '%s'", iso_date)
            return False
        self.pub_date = ms
        return True

    def set_citations_count(self, count: str | int | None) -> bool:
        try:
            n = int(str(count).strip())
        except (TypeError, ValueError):
            log.warning("illegal citations count '%s'", count)
            return False
        if n < 0:
            log.warning("citations count is negative: %d", n)
            return False
        self.citations_count = n
        self.citations_timestamp = self.clock()
        return True

    def set_corresp_author(self, authors: list[CorrespAuthor], force: bool = False) -> None:
        """Set once; an XML source (JATS, PubMed) may replace what a weaker source set (``force``)."""
        authors = [a for a in authors if not a.is_empty()]
        if authors and (force or not self.corresp_author):
            self.corresp_author = authors

    def set_authors(self, authors: list[Author]) -> None:
        if authors and not self.authors:
            self.authors = list(authors)

    def set_biblio(self, **values: str | None) -> None:
        """Set once each of volume, issue, pages, issn, eissn, publisher."""
        for key, value in values.items():
            if key not in BIBLIO_FIELDS:
                raise ValueError(f"unknown bibliographic field {key}")
            if value and not getattr(self, key):
                setattr(self, key, value.strip())

    def set_pub_types(self, types: Iterable[str]) -> None:
        if not self.pub_types:
            self.pub_types = list(dict.fromkeys(t.strip() for t in types if t and t.strip()))

    def set_rich(self, name: RichName, value: list | str, type_: PartType, url: str) -> bool:
        """Offer a rich part under the parts' overwrite rule (see :mod:`pubfetch.model.rich`)."""
        part = self.rich(name)
        if isinstance(part, RichText):
            return part.offer(value if isinstance(value, str) else "", type_, url, self.clock)
        return part.offer(value if isinstance(value, list) else [], type_, url, self.clock)

    def join_rich(self, name: RichName, items: list, type_: PartType, url: str) -> bool:
        """Add to a list part what another source says beside it (updates, relations: each source names the notices
        and versions it knows of): an empty part takes the items with their provenance, a part already holding some
        keeps its provenance and gains the items it lacks."""
        part = self.rich(name)
        if not isinstance(part, RichList) or not items:
            return False
        if part.is_empty():
            return part.offer(list(dict.fromkeys(items)), type_, url, self.clock)
        new = [item for item in dict.fromkeys(items) if item not in part.items]
        part.items.extend(new)
        return bool(new)

    @property
    def retracted(self) -> bool:
        """Whether a retraction source says the paper was retracted (:mod:`pubfetch.model.retraction`)."""
        return self.retraction.retracted

    def set_retraction(self, verdict: RetractionVerdict) -> None:
        """Take a retraction source's verdict in place of that source's earlier one."""
        self.retraction.set(verdict)

    def retraction_notices(self) -> list[str]:
        """The PMIDs (else DOIs) of the retraction notices among the updates."""
        return [u.pmid or u.doi for u in self.updates.items if u.type in RETRACTED_BY and (u.pmid or u.doi)]

    # --- identity ----------------------------------------------------------------------------------------------------

    def rejected(self, url: str) -> RejectedSite | None:
        """The rejected site ``url`` names (asked or reached), if it was rejected for this publication."""
        return next((s for s in self.rejected_sites if s.names(url)), None)

    def reject_site(self, site: RejectedSite) -> None:
        """Record a page or PDF as another paper's (once per URL)."""
        if self.rejected(site.url) is None:
            self.rejected_sites.append(site)
            self.new_rejections += 1

    def add_unverified_site(self, site: UnverifiedSite) -> None:
        if not any(s.url == site.url for s in self.unverified_sites):
            self.unverified_sites.append(site)

    def hold_fields(self, url: str, held: tuple[Any, ...]) -> None:
        """Keep what an unverified site gave that could not be dropped again, until it is confirmed."""
        self.held_fields.setdefault(url, []).append(held)

    def release_fields(self, url: str) -> list[tuple[Any, ...]]:
        """What was held for the site ``url`` (confirmed), no longer held."""
        return self.held_fields.pop(url, [])

    def trusted_titles(self) -> list[str]:
        """Titles from sources that are not unverified pages: the title part's, then those offered in this fetch."""
        unverified = {s.url for s in self.unverified_sites}
        found = [self.title.content] if self.title.content and self.title.url not in unverified else []
        return list(dict.fromkeys(found + [t for t, _, url in self.title_offers if url not in unverified]))

    def settle_unverified(self, threshold: float, args: FetcherArgs) -> tuple[list[UnverifiedSite],
                                                                              list[RejectedSite]]:
        """Confirm or drop the unverified sites by the titles of other sources (a similarity of at least
        ``threshold``, as :func:`~pubfetch.model.identity.title_similarity` measures): a site whose title none of them
        matches loses the parts it gave (the titles it kept out are offered again) and is rejected. Returns
        (confirmed, rejected); a site stays unverified while no other title is known, or when it showed no title."""
        titles = self.trusted_titles()
        confirmed: list[UnverifiedSite] = []
        rejected: list[RejectedSite] = []
        if not titles:
            return confirmed, rejected
        for site in list(self.unverified_sites):
            if not site.titles:
                continue
            self.unverified_sites.remove(site)
            if any(title_similarity(known, shown) >= threshold for known in titles for shown in site.titles):
                confirmed.append(site)
                continue
            self._drop_parts_from(site.url)
            gone = RejectedSite(site.url, site.type, Reason.TITLE, site.from_url, title=site.title,
                                timestamp=self.clock())
            self.reject_site(gone)
            rejected.append(gone)
        offers = list(self.title_offers)
        if not self.unverified_sites:
            self.title_offers.clear()
        if rejected:
            for title, type_, url in offers:
                self._set_string(self.title, title, type_, url, args, False)
        return confirmed, rejected

    def _drop_parts_from(self, url: str) -> None:
        """Empty every content and rich part read from ``url``, and forget what was held from it and its visit."""
        self.held_fields.pop(url, None)
        self.visited_sites = [v for v in self.visited_sites if v.url != url]
        for name in (PartName.title, PartName.keywords, PartName.mesh, PartName.efo, PartName.go, PartName.theAbstract,
                     PartName.fulltext):
            if self.part(name).url == url:
                setattr(self, name.value, (ListPart if name.is_list else StringPart)(name))
        for rich in RichName:
            if self.rich(rich).url == url:
                setattr(self, rich.attribute, new_part(rich))

    def add_visited_site(self, site: VisitedSite) -> None:
        if site not in self.visited_sites:
            self.visited_sites.append(site)

    # --- JSON ---------------------------------------------------------------------------------------------------------

    def to_json(self, args: FetcherArgs | None = None, computed: bool = True) -> dict[str, Any]:
        """PubFetcher's JSON; ``computed=False`` leaves out what follows from the parameters (the stored form)."""
        if computed and args is None:
            args = default_args()
        # one dict display, not update() with keywords: a bulk import serialises every record it stores
        d: dict[str, Any] = {
            **self.state.to_json(),
            "oa": self.oa,
            "preprint": self.preprint,
            "journalTitle": self.journal_title,
            "pubDate": self.pub_date,
            "pubDateHuman": date_human(self.pub_date),
            "citationsCount": self.citations_count,
            "citationsTimestamp": self.citations_timestamp,
            "citationsTimestampHuman": instant_human(self.citations_timestamp),
            "correspAuthor": [a.to_json() for a in self.corresp_author],
            "visitedSites": [s.to_json() for s in self.visited_sites],
            "authors": [a.to_json() for a in self.authors],
            "volume": self.volume,
            "issue": self.issue,
            "pages": self.pages,
            "issn": self.issn,
            "eissn": self.eissn,
            "publisher": self.publisher,
            "pubTypes": list(self.pub_types),
            "retracted": self.retracted,
            "retractionFlags": self.retraction.to_json(),
            "rejectedSites": [r.to_json() for r in self.rejected_sites],
            "unverifiedSites": [u.to_json() for u in self.unverified_sites],
        }
        for key, attribute in _RICH_KEYS:  # before the ten parts, which close the object as in PubFetcher
            d[key] = getattr(self, attribute).to_json(computed)
        if computed:
            assert args is not None
            d.update(empty=self.is_empty(), usable=self.is_usable(args), final=self.is_final(args),
                     totallyFinal=self.is_totally_final(args))
        for key in _PART_KEYS:
            d[key] = getattr(self, key).to_json(args, computed)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any], clock: Clock = now_ms) -> Publication:
        pub = cls(clock=clock)
        pub.state = FetchState.from_json(d)
        pub._load_facts(d)
        pub._load_people_and_sites(d)
        pub._load_parts(d)
        pub._load_retraction(d)
        return pub

    def _load_facts(self, d: dict[str, Any]) -> None:
        """The scalar facts and bibliographic fields of a stored entry."""
        self.oa = bool(d.get("oa", False))
        self.preprint = bool(d.get("preprint", False))
        self.journal_title = d.get("journalTitle", "") or ""
        self.pub_date = int(d.get("pubDate", -1))
        self.citations_count = int(d.get("citationsCount", -1))
        self.citations_timestamp = int(d.get("citationsTimestamp", -1))
        for key in BIBLIO_FIELDS:
            setattr(self, key, d.get(key, "") or "")
        self.pub_types = list(d.get("pubTypes", []) or [])

    def _load_people_and_sites(self, d: dict[str, Any]) -> None:
        """The authors and the sites visited, rejected or left unverified, of a stored entry."""
        self.corresp_author = [CorrespAuthor.from_json(a) for a in d.get("correspAuthor", []) or []]
        self.visited_sites = [VisitedSite.from_json(s) for s in d.get("visitedSites", []) or []]
        self.authors = [Author.from_json(a) for a in d.get("authors", []) or []]
        self.rejected_sites = [RejectedSite.from_json(r) for r in d.get("rejectedSites", []) or []]
        self.unverified_sites = [UnverifiedSite.from_json(u) for u in d.get("unverifiedSites", []) or []]

    def _load_parts(self, d: dict[str, Any]) -> None:
        for name in PartName:
            if name.value in d and isinstance(d[name.value], dict):
                self.part(name).load_json(d[name.value])
        for rich in RichName:  # absent from entries written before these parts existed
            if isinstance(d.get(rich.value), dict):
                self.rich(rich).load_json(d[rich.value])

    def _load_retraction(self, d: dict[str, Any]) -> None:
        """The retraction flags per source; an entry stored before they were kept (or by a source not known here)
        that says it is retracted keeps saying so."""
        flags = d.get("retractionFlags")
        if isinstance(flags, dict):
            self.retraction = RetractionFlags.from_json(flags)
        said = d.get("retracted") is True or (not isinstance(flags, dict)
                                              and says_retracted(self.pub_types, self.updates.items))
        if said and not self.retracted:
            self.set_retraction(RetractionVerdict(RetractionSource.earlier, True))

    def plain_json(self, names: Iterable[PartName] | None = None) -> dict[str, Any]:
        """The ``--plain`` form: part contents only."""
        out: dict[str, Any] = {}
        for name in names if names is not None else PartName:
            p = self.part(name)
            out[name.value] = p.content if isinstance(p, StringPart) else p.items_json()
        return out

    def __str__(self) -> str:
        return str(self.ids)
