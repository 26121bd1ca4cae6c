"""Merging a parsed record into a publication: the one place where what a source says becomes parts.

Each field goes through the publication's setter, whose overwrite rules (part type ranking, finality) decide whether
it is taken, so every resource merges the same way whatever its parser.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, cast

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import RichName, dedup_grants

__all__ = ["PartTypes", "apply_held", "apply_record"]

PartTypes = PartType | Mapping[PartName, PartType] | Mapping[PartName | RichName, PartType]


def _type_for(types: PartTypes, name: PartName | RichName) -> PartType | None:
    if isinstance(types, PartType):
        return types
    return cast("Mapping[PartName | RichName, PartType]", types).get(name)


def apply_record(
    pub: Publication,
    record: ArticleRecord,
    types: PartTypes,
    url: str,
    args: FetcherArgs,
    *,
    parts: frozenset[PartName] | None = None,
    ids: bool = True,
    force_corresp: bool = False,
    hold: bool = False,
    rich: bool = True,
) -> list[PartName]:
    """Merge a record into a publication under the model's overwrite rules; return the parts that changed.

    Args:
        types: one part type for every part, or a type per part (a part missing from the mapping is not set, which
            is how a resource says "this source's keywords are not worth taking"); the rich parts (funding,
            updates, references, sections, license) are keyed by :class:`RichName` in a mapping.
        url: the URL the record was read from (stored on each part).
        parts: when given, only these content parts are set (``--fetch-part``); IDs and bibliographic fields are
            always taken because they steer the rest of the chain.
        ids: also take the record's IDs (off when the record's IDs were found to contradict the publication's).
        force_corresp: an XML source (JATS, PubMed) replaces corresponding authors a weaker source set.
        hold: the record is an unverified page's (:mod:`pubfetch.model.identity`): only the parts that can be dropped
            again (content and rich parts, each with its URL) are merged; its IDs and set-once fields (journal, date,
            authors, volume ...), which nothing could take back, are held on the publication until the page is
            confirmed (:func:`apply_held`) and forgotten if it is rejected.
        rich: also merge the rich parts (off for a run that neither asks for nor stores them, ``--no-rich-parts``).
    """
    if hold:
        pub.hold_fields(url, (replace(record, **_NO_PARTS), types, ids, force_corresp))
    changed: list[PartName] = []
    if ids and not hold:
        for name, value, setter in (
            (PartName.pmid, record.pmid, pub.set_pmid),
            (PartName.pmcid, record.pmcid, pub.set_pmcid),
            (PartName.doi, record.doi, pub.set_doi),
        ):
            type_ = _type_for(types, name)
            if value and type_ is not None and setter(value, type_, url, args):
                changed.append(name)
    # tuples, not a dict keyed by the names: an Enum member hashes through a Python method, and a bulk import merges
    # every record it stores
    content: tuple[tuple[PartName, Any, Callable[..., bool]], ...] = (
        (PartName.title, record.title, pub.set_title),
        (PartName.keywords, record.keywords, pub.set_keywords),
        (PartName.mesh, record.mesh, pub.set_mesh),
        (PartName.efo, record.efo, pub.set_efo),
        (PartName.go, record.go, pub.set_go),
        (PartName.theAbstract, record.abstract, pub.set_abstract),
        (PartName.fulltext, record.fulltext, pub.set_fulltext),
    )
    for name, value, setter in content:
        if not value or (parts is not None and name not in parts):
            continue
        type_ = _type_for(types, name)
        if type_ is not None and setter(value, type_, url, args):
            changed.append(name)
    if not hold:
        _apply_fields(pub, record, force_corresp)
    if rich:
        _apply_rich(pub, record, types, url)
    return changed


def apply_held(pub: Publication, url: str, args: FetcherArgs) -> list[PartName]:
    """Merge the IDs and set-once fields held back from the unverified page ``url`` now that it is confirmed; return
    the IDs that changed."""
    changed: list[PartName] = []
    for record, types, ids, force_corresp in pub.release_fields(url):
        changed += apply_record(pub, record, types, url, args, parts=frozenset(), ids=ids,
                                force_corresp=force_corresp)
    return changed


#: What of a record held for an unverified page is left out: what :func:`apply_record` merged as parts at once
_NO_PARTS: dict[str, Any] = {"title": "", "abstract": "", "fulltext": "", "keywords": [], "mesh": [], "efo": [],
                             "go": [], "funding": [], "updates": [], "references": [], "sections": [], "license": "",
                             "links": [], "relations": [], "text_links": [], "tables": [], "figures": [],
                             "supplements": [], "statements": []}


def _apply_fields(pub: Publication, record: ArticleRecord, force_corresp: bool) -> None:
    """The set-once bibliographic fields (first source wins; nothing takes them back)."""
    pub.set_journal_title(record.journal_title)
    pub.set_pub_date(record.pub_date)
    if record.citations_count is not None:
        pub.set_citations_count(record.citations_count)
    if record.oa:
        pub.oa = True
    if record.preprint:
        pub.preprint = True
    pub.set_corresp_author(record.corresp_author, force=force_corresp)
    pub.set_authors(record.authors)
    pub.set_biblio(volume=record.volume, issue=record.issue, pages=record.pages, issn=record.issn,
                   eissn=record.eissn, publisher=record.publisher)
    pub.set_pub_types(record.pub_types)
    if record.retraction is not None:
        pub.set_retraction(record.retraction)


def _apply_rich(pub: Publication, record: ArticleRecord, types: PartTypes, url: str) -> None:
    """The rich parts: taken when the type allows, whatever ``--fetch-part`` says (it names only PubFetcher's ten
    parts); a run with ``--no-rich-parts`` does not call this."""
    values: tuple[tuple[RichName, list | str], ...] = (
        (RichName.funding, dedup_grants(record.funding)),
        (RichName.links, record.text_links),
        (RichName.updates, list(dict.fromkeys(record.updates))),
        (RichName.references, record.references),
        (RichName.sections, record.sections),
        (RichName.license, record.license),
        (RichName.relations, list(dict.fromkeys(record.relations))),
        (RichName.tables, record.tables),
        (RichName.figures, record.figures),
        (RichName.supplements, record.supplements),
        (RichName.statements, record.statements),
    )
    for name, value in values:
        if not value:
            continue
        type_ = _type_for(types, name)
        if type_ is not None:
            pub.set_rich(name, value, type_, url)
