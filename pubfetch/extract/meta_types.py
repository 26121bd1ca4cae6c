"""The part types of what a page's meta tags gave: each field's and link's type is the worse of its tag format's type
and the page's own type, as in PubFetcher ("a meta tag read on a link page is no better than the link itself").

:func:`pubfetch.extract.meta.parse_meta` records each field's format in ``record.flags["types"]`` and each link's tag
in :attr:`Link.source`; a resource turns them into the :class:`PartType` values it passes to ``apply_record`` here.
"""

from __future__ import annotations

from pubfetch.extract.meta import LINK_TYPES
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.record import ArticleRecord, Link

__all__ = ["link_part_type", "meta_part_types"]


def _typed(name: str, resource_type: PartType | None) -> PartType:
    type_ = PartType(name)
    return type_ if resource_type is None else PartType.worse(type_, resource_type)


_FIELD_PARTS = {"pmid": PartName.pmid, "pmcid": PartName.pmcid, "doi": PartName.doi, "title": PartName.title,
                "keywords": PartName.keywords, "abstract": PartName.theAbstract}


def meta_part_types(record: ArticleRecord, resource_type: PartType | None = None,
                    keywords: bool = True) -> dict[PartName, PartType]:
    """The part type of each field :func:`parse_meta` filled, for ``apply_record``.

    Each type is the worse of the format's type (citation, eprints, bepress, dc, og, twitter, meta) and the page's
    ``resource_type`` (doi, link, link_oadoi, ...), as PubFetcher's chooseType; ``keywords=False`` leaves keywords out
    (PubFetcher takes meta keywords only where the resource asks for them).
    """
    types = record.flags.get("types")
    if not isinstance(types, dict):
        return {}
    out: dict[PartName, PartType] = {}
    for field, name in types.items():
        part = _FIELD_PARTS.get(field)
        if part is None or (part is PartName.keywords and not keywords):
            continue
        out[part] = _typed(name, resource_type)
    return out


def link_part_type(link: Link, resource_type: PartType | None = None) -> PartType:
    """The part type of a link found by :func:`parse_meta` (``link_citation``, ``pdf_citation``, ...), no better
    than the page it was found on; a link from another source is ``link_meta``/``pdf_meta`` by its kind."""
    name = LINK_TYPES.get(link.source) or ("pdf_meta" if link.kind == "pdf" else "link_meta")
    return _typed(name, resource_type)
