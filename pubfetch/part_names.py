"""The names of a publication's parts and of the annotation types of its mined terms, below every layer that names
them: the settings choose what to fetch by them, the model holds parts under them (:mod:`pubfetch.model.part_type`
adds the part types, :mod:`pubfetch.model.mined_terms` the terms)."""

from __future__ import annotations

from enum import Enum, StrEnum

__all__ = ["DEFAULT_ANNOTATIONS", "AnnotationType", "PartName"]


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


class AnnotationType(StrEnum):
    """The annotations service's type names (its ``type`` parameter and each annotation's ``type``)."""

    gene_proteins = "Gene_Proteins"
    diseases = "Diseases"
    chemicals = "Chemicals"
    organisms = "Organisms"
    accession_numbers = "Accession Numbers"
    resources = "Resources"
    experimental_methods = "Experimental Methods"
    gene_ontology = "Gene Ontology"


#: what PubFetcher asks: its efo and go parts
DEFAULT_ANNOTATIONS = frozenset((AnnotationType.experimental_methods, AnnotationType.gene_ontology))
