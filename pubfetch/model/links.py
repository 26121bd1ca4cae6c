"""The links and identifiers found in a publication's text: URLs, DOIs, data accessions, RRIDs, trial registrations
and grant IDs, each with the section it appears in and the sentence around it.

This is what text miners take from a paper (Pub2Tools and EDAMmap read tool URLs; data curators read accessions),
so each link says what it is (``kind``, from a closed list), which registry's pattern it matched (``registry``, a
Bioregistry prefix, for the kinds that have one), where it is (``sectionPath``: the headings from the outermost
down) and whether the source marked it up as a link (``marked``: a JATS ``ext-link``, ``uri``, ``related-object`` or
``award-id``) or it was found in the words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["LINK_KINDS", "TextLink"]

#: the kinds, a closed list: JSON value -> what it stands for
LINK_KINDS: dict[str, str] = {
    "url": "URL",
    "doi": "DOI",
    "insdc": "GenBank/ENA/DDBJ nucleotide sequence",
    "refseq": "RefSeq",
    "uniprot": "UniProt",
    "pdb": "PDB structure",
    "geo": "GEO (GSE/GSM/GPL/GDS)",
    "sra": "SRA/ENA run, experiment, sample or study",
    "bioproject": "BioProject/BioSample",
    "arrayexpress": "ArrayExpress",
    "ensembl": "Ensembl",
    "rrid": "RRID",
    "clinicalTrial": "clinical trial registration",
    "grant": "grant ID",
}


def _s(d: dict, key: str) -> str:
    value = d.get(key, "")
    return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class TextLink:
    """One link or identifier: its kind, its value (a URL as written with its scheme, a DOI without ``doi.org``, an
    accession as written), the registry prefix its pattern is from, the section path, the sentence and whether the
    source marked it."""

    kind: str
    value: str
    registry: str = ""
    section_path: tuple[str, ...] = ()
    sentence: str = ""
    marked: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "value": self.value, "registry": self.registry,
                "sectionPath": list(self.section_path), "sentence": self.sentence, "marked": self.marked}

    @classmethod
    def from_json(cls, d: dict) -> TextLink:
        path = d.get("sectionPath")
        return cls(_s(d, "kind"), _s(d, "value"), _s(d, "registry"),
                   tuple(p for p in (path if isinstance(path, list) else []) if isinstance(p, str)),
                   _s(d, "sentence"), d.get("marked") is True)

    def __str__(self) -> str:
        return f"{self.kind}:{self.value}"
