"""The names of a publication's parts, below every layer that names them: the settings choose parts to fetch by
them, the model holds parts under them (:mod:`pubfetch.model.part_type` adds the part types)."""

from __future__ import annotations

from enum import Enum

__all__ = ["PartName"]


class PartName(Enum):
    """The ten parts of a publication, in PubFetcher's order; ``value`` is the name on the command line and in JSON."""

    pmid = "pmid"
    pmcid = "pmcid"
    doi = "doi"
    title = "title"
    keywords = "keywords"
    mesh = "mesh"
    efo = "efo"
    go = "go"
    theAbstract = "abstract"
    fulltext = "fulltext"

    @classmethod
    def parse(cls, name: str) -> PartName:
        """Accept the JSON name (``abstract``) as well as PubFetcher's enum name (``theAbstract``)."""
        for part in cls:
            if name in (part.value, part.name):
                return part
        raise ValueError(f"unknown publication part '{name}': expected one of {', '.join(p.value for p in cls)}")

    @property
    def is_id(self) -> bool:
        return self in (PartName.pmid, PartName.pmcid, PartName.doi)

    @property
    def is_list(self) -> bool:
        return self in (PartName.keywords, PartName.mesh, PartName.efo, PartName.go)
