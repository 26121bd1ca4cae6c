"""Records of bulk files merged into a database's entries, many in one transaction.

Each record is merged as the resource that serves it during a fetch merges it (:func:`~pubfetch.model.merge.
apply_record` with that resource's part type and URL), into the entry its PMID, PMCID or DOI leads to, so an entry
holds the same whether its PubMed record was fetched or imported, and a later ``-db-fetch`` asks the services only for
what the files lack (a part of PubMed XML's final type is final for it, as after a fetch).

A newer version of a PubMed record replaces the older one: the parts the older one gave (those of the PubMed XML type)
are emptied first and the bibliographic fields it carries are taken anew, then the record goes through the merge as
usual. Parts another source gave (a full text, a page) stay.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from pubfetch import ids as idmod
from pubfetch.bulk.entryjson import pubmed_entry
from pubfetch.bulk.fresh import NewEntry, existing_ids, insert_new, keys_of
from pubfetch.bulk.ledger import Held, held_versions, insert_versions, set_versions
from pubfetch.bulk.medline import Citation, Deletion
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import ListPart, StringPart
from pubfetch.model.publication import Publication
from pubfetch.model.record import ArticleRecord
from pubfetch.model.retraction import RetractionFlags
from pubfetch.model.rich import RichName, new_part
from pubfetch.store.base import StoreError
from pubfetch.store.sql import SqlStore, Tx, get_entry, lookup_key, put_entry, remove_by_id

__all__ = ["Applied", "JatsItem", "apply_citations", "apply_jats", "jats_url", "pubmed_url"]

log = logging.getLogger(__name__)

_CONTENT = (PartName.title, PartName.keywords, PartName.mesh, PartName.efo, PartName.go, PartName.theAbstract,
            PartName.fulltext)


@dataclass
class Applied:
    """What a chunk did to the database."""

    stored: int = 0
    unchanged: int = 0
    deleted: int = 0

    def add(self, other: Applied) -> None:
        self.stored += other.stored
        self.unchanged += other.unchanged
        self.deleted += other.deleted


@dataclass(frozen=True)
class JatsItem:
    """A full text of a package with the part type and URL of the resource it stands for."""

    record: ArticleRecord
    type_: PartType
    url: str


@dataclass
class _Chunk:
    """Rows written together at the end of a chunk's transaction."""

    versions: list[tuple[str, int, int, int]] = field(default_factory=list)
    #: those of PMIDs no version of which is held: inserted, not upserted
    new_versions: list[tuple[str, int, int, int]] = field(default_factory=list)
    applied: Applied = field(default_factory=Applied)


def pubmed_url(eutils: str, pmid: str) -> str:
    """The URL a PubMed part records: the one-ID efetch URL, as a fetch records it."""
    return f"{eutils}efetch.fcgi?retmode=xml&db=pubmed&id={pmid}"


def _found(tx: Tx, record: ArticleRecord) -> Publication | None:
    """The stored entry a record's IDs lead to: by PMID, else PMCID, else DOI (the order a put resolves them in)."""
    for any_id in (record.pmid, record.pmcid, record.doi):
        if any_id:
            pub = get_entry(tx, any_id)
            if pub is not None:
                return pub
    return None


def _another_papers(pub: Publication, record: ArticleRecord) -> list[str]:
    """The record's IDs (field names) that lead to ``pub`` when ``pub`` is another paper's entry: one whose PMID, or
    PMCID, is not the record's. PubMed names some DOIs for two records (PMIDs 420122 and 420123 both name
    10.1093/ajcn/32.2.277); merged, one of the two papers would be lost, or take the other's parts."""
    if not any(mine and theirs and lookup_key(mine) != lookup_key(theirs)
               for mine, theirs in ((record.pmid, pub.pmid.content), (record.pmcid, pub.pmcid.content))):
        return []
    held = {lookup_key(i) for i in (pub.pmid.content, pub.pmcid.content, pub.doi.content) if i}
    return [name for name in ("pmcid", "doi") if getattr(record, name) and lookup_key(getattr(record, name)) in held]


def _named(pmid: str, pmcid: str, doi: str) -> str:
    """A paper by its strongest ID, as a message names it (``PMID 420123``)."""
    return next((f"{kind} {value}" for kind, value in (("PMID", pmid), ("PMCID", pmcid), ("DOI", doi)) if value), "?")


def _entry(tx: Tx, record: ArticleRecord) -> tuple[Publication | None, ArticleRecord]:
    """The stored entry of a record, and the record to merge into it: without the IDs another paper's entry holds
    (:func:`_another_papers`), the record then going into an entry of its own, with a warning naming both."""
    for _ in range(2):  # the PMCID and the DOI may each lead to another paper
        pub = _found(tx, record)
        clash = _another_papers(pub, record) if pub is not None else []
        if pub is None or not clash:
            return pub, record
        named = " and ".join(f"{name.upper()} {getattr(record, name)}" for name in clash)
        log.warning("%s names %s, as does %s in the database, another paper: stored without it",
                    _named(record.pmid, record.pmcid, record.doi), named,
                    _named(pub.pmid.content, pub.pmcid.content, pub.doi.content))
        record = replace(record, pmcid="" if "pmcid" in clash else record.pmcid,
                         doi="" if "doi" in clash else record.doi)
    return _found(tx, record), record


def _forget_pubmed_parts(pub: Publication, record: ArticleRecord) -> None:
    """Make room for a newer version of a PubMed record: what the older one gave goes (its part type says so), and the
    set-once fields the newer one carries are taken from it."""
    for name in _CONTENT:
        if pub.part(name).type is PartType.pubmed_xml:
            setattr(pub, name.value, (ListPart if name.is_list else StringPart)(name))
    for rich in RichName:
        if pub.rich(rich).type is PartType.pubmed_xml:
            setattr(pub, rich.attribute, new_part(rich))
    for key in ("journal_title", "volume", "issue", "pages", "issn", "eissn", "publisher"):
        if getattr(record, key):
            setattr(pub, key, "")
    if record.pub_date:
        pub.pub_date = -1
    if record.authors:
        pub.authors = []
    if record.pub_types:
        pub.pub_types = []
    if record.retraction is not None:
        pub.retraction = RetractionFlags()


def _put(store: SqlStore, tx: Tx, pub: Publication) -> None:
    put_entry(tx, pub, store.encode(pub.to_json(computed=False)), store.JSON_MARK)


def apply_citations(store: SqlStore, items: Sequence[Citation | Deletion], rank: int, args: FetcherArgs,
                    eutils: str, *, then: Callable[[Tx], None] | None = None) -> Applied:
    """Merge a chunk of a MEDLINE file (of rank ``rank``) in one transaction, with ``then`` (the file's record after
    its last chunk) in the same; return what it did. The chunk's new records are written together
    (:mod:`pubfetch.bulk.fresh`); should another process have written one of their IDs meanwhile, the chunk is merged
    again record by record."""

    def work(tx: Tx, together: bool) -> Applied:
        chunk = _Chunk()
        held = held_versions(tx, [i.record.pmid if isinstance(i, Citation) else i.pmid for i in items])
        fresh = _fresh(tx, items, held) if together else set()
        if fresh:
            new = [c for i in sorted(fresh) if isinstance(c := items[i], Citation)]
            _insert_fresh(store, tx, new, rank, held, chunk, args, eutils)
        for index, item in enumerate(items):
            if index in fresh:
                continue
            if isinstance(item, Deletion):
                _delete(tx, item.pmid, rank, held, chunk)
            else:
                _citation(store, tx, item, rank, held, chunk, args, eutils)
        insert_versions(store, tx, chunk.new_versions)
        set_versions(tx, chunk.versions)
        if then is not None:
            then(tx)
        return chunk.applied

    try:
        return store.transact(lambda tx: work(tx, True))
    except StoreError:
        return store.transact(lambda tx: work(tx, False))


def _fresh(tx: Tx, items: Sequence[Citation | Deletion], held: dict[str, Held]) -> set[int]:
    """The positions of the citations that meet no ID of the database nor of an earlier item of the chunk."""
    keys = [keys_of(i.record.pmid, i.record.pmcid, i.record.doi) if isinstance(i, Citation) else keys_of(i.pmid, "", "")
            for i in items]
    found = existing_ids(tx, (k for ks in keys for k in ks))
    seen: set[str] = set()
    fresh = set()
    for index, (item, ks) in enumerate(zip(items, keys, strict=True)):
        mine = {k for k in ks if k}
        # two disjointness tests, not one against the union: that union was a new set per record (quadratic)
        if isinstance(item, Citation) and item.record.pmid not in held and mine.isdisjoint(found) \
                and mine.isdisjoint(seen):
            fresh.add(index)
        seen |= mine
    return fresh


def _insert_fresh(store: SqlStore, tx: Tx, items: Sequence[Citation], rank: int, held: dict[str, Held],
                  chunk: _Chunk, args: FetcherArgs, eutils: str) -> None:
    entries: list[NewEntry] = []
    for item in items:
        record = item.record
        url = pubmed_url(eutils, record.pmid)
        # the merge into an empty entry written straight from the record (pubfetch.bulk.entryjson), the same JSON
        doc = pubmed_entry(record, url)
        if doc is None:  # something the merge warns about: the merge itself
            pub = Publication()
            apply_record(pub, record, PartType.pubmed_xml, url, args, force_corresp=True)
            doc = pub.to_json(computed=False)
        pmid, pmcid, doi = doc["pmid"], doc["pmcid"], doc["doi"]
        entries.append((keys_of(pmid["content"], pmcid["content"], doi["content"]),
                        (pmid["url"], pmcid["url"], doi["url"]), store.encode_utf8(doc)))
        held[record.pmid] = Held(item.version, rank, False)
        chunk.new_versions.append((record.pmid, item.version, rank, 0))
        chunk.applied.stored += 1
    insert_new(store, tx, entries)


def _delete(tx: Tx, pmid: str, rank: int, held: dict[str, Held], chunk: _Chunk) -> None:
    """A ``DeleteCitation``: the entry goes (see docs/bulk.md, "Deleted citations"); the PMID is remembered as deleted
    by this file, so an older file imported later does not bring it back. A later file's record, or this file's
    deletion already applied, stands."""
    before = held.get(pmid)
    if before is not None and (before.rank > rank or (before.deleted and before.rank == rank)):
        chunk.applied.unchanged += 1
        return
    if remove_by_id(tx, pmid):
        chunk.applied.deleted += 1
    else:
        chunk.applied.unchanged += 1
    mark = Held(before.version if before else 0, rank, True)
    held[pmid] = mark
    chunk.versions.append((pmid, mark.version, rank, 1))


def _citation(store: SqlStore, tx: Tx, item: Citation, rank: int, held: dict[str, Held], chunk: _Chunk,
              args: FetcherArgs, eutils: str) -> None:
    record = item.record
    before = held.get(record.pmid)
    if before is not None and not before.taken_over_by(item.version, rank):
        chunk.applied.unchanged += 1
        return
    pub, record = _entry(tx, record)
    if pub is None:
        pub = Publication()
    elif before is not None:
        _forget_pubmed_parts(pub, record)
    apply_record(pub, record, PartType.pubmed_xml, pubmed_url(eutils, record.pmid), args, force_corresp=True)
    _put(store, tx, pub)
    held[record.pmid] = Held(item.version, rank, False)
    chunk.versions.append((record.pmid, item.version, rank, 0))
    chunk.applied.stored += 1


def apply_jats(store: SqlStore, items: Sequence[JatsItem], args: FetcherArgs, *,
               then: Callable[[Tx], None] | None = None) -> Applied:
    """Merge a chunk of full texts in one transaction (with ``then``), each as its resource's fetch would merge it."""

    def work(tx: Tx) -> Applied:
        applied = Applied()
        for item in items:
            found, record = _entry(tx, item.record)
            pub = found or Publication()
            before = pub.to_json(computed=False)
            apply_record(pub, record, item.type_, item.url, args, force_corresp=True)
            if pub.to_json(computed=False) == before:
                applied.unchanged += 1
                continue
            _put(store, tx, pub)
            applied.stored += 1
        if then is not None:
            then(tx)
        return applied

    return store.transact(work)


def jats_url(type_: PartType, record: ArticleRecord, europepmc: str, eutils: str) -> str:
    """The URL a full text records: the fullTextXML or PMC efetch URL its fetch would have read it from."""
    if type_ is PartType.europepmc_xml and record.pmcid:
        return f"{europepmc}{record.pmcid}/fullTextXML"
    if record.pmcid:
        return f"{eutils}efetch.fcgi?retmode=xml&db=pmc&id={idmod.extract_pmcid_number(record.pmcid)}"
    return ""
