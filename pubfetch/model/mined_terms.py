"""Terms Europe PMC's annotations service text-mined from a paper, of any of its types (genes and proteins, diseases,
chemicals, organisms, accession numbers, resources, experimental methods, Gene Ontology).

PubFetcher keeps two of the types as parts of their own (``efo``: Experimental Methods, ``go``: Gene Ontology); the
other types asked for (``--annotations``) are kept together in the ``minedTerms`` rich part, each term with its type,
its most frequent spelling, its count and its ontology or database URI, because a text-mining pipeline filters them
by type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pubfetch.part_names import DEFAULT_ANNOTATIONS, AnnotationType

__all__ = ["DEFAULT_ANNOTATIONS", "OWN_PARTS", "AnnotationType", "TypedTerm"]


#: the types kept in parts of their own (efo, go) rather than in ``minedTerms``
OWN_PARTS = DEFAULT_ANNOTATIONS


def _s(d: dict, key: str) -> str:
    value = d.get(key, "")
    return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class TypedTerm:
    """One text-mined term: the annotation type, the term as most often written, its summed count and its URI."""

    type: str
    term: str
    count: int = 1
    uri: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "term": self.term, "count": self.count, "uri": self.uri}

    @classmethod
    def from_json(cls, d: dict) -> TypedTerm:
        count = d.get("count", 1)
        return cls(_s(d, "type"), _s(d, "term"),
                   count if isinstance(count, int) and not isinstance(count, bool) else 1, _s(d, "uri"))

    def __str__(self) -> str:
        return f"{self.type}: {self.term} ({self.count})"
