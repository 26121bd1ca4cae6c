"""Whether a paper was retracted, as the sources that keep track of retractions say: each such source sets and clears
only its own flag, and the paper is retracted while any of them says so.

The sources (:class:`RetractionSource`) are bibliographic databases whose record of a paper is updated when it is
retracted: PubMed (the record's publication type "Retracted Publication", or a ``RetractionIn`` comment), Europe PMC
(the same type in the search result's ``pubTypeList``, or a "Retraction in" correction), Crossref (a notice of type
retraction updating the work, recorded on the work or only on the notice) and OpenAlex (``is_retracted``). A later
answer of the same source replaces its verdict, so a record no longer marked (a retraction withdrawn, a wrong link
removed) clears it. What a page says of itself (a ``citation_article_type`` meta tag, on the publisher's site or on a
copy Unpaywall lists), a JATS article type and Unpaywall's genre are no verdict: any page can say anything, and no later
answer of that page's kind could take a flag back.

An entry stored before flags were kept per source says only ``retracted`` (or, older still, only the publication types
and updates that made it so); an entry of a newer pubfetch may name a source not known here. Either reads as the
verdict of :attr:`RetractionSource.earlier`, which the first verdict of a known source replaces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from pubfetch.model.rich import Update

__all__ = ["RETRACTED_BY", "RETRACTED_TYPE", "RetractionFlags", "RetractionSource", "RetractionVerdict",
           "says_retracted"]

#: update types that say the paper itself was retracted
RETRACTED_BY = frozenset(("RetractionIn", "RetractedandRepublishedIn"))
#: the publication type (lower case) PubMed and Europe PMC give a retracted paper
RETRACTED_TYPE = "retracted publication"


class RetractionSource(Enum):
    """A source whose record says whether a paper was retracted; ``value`` is its key in ``retractionFlags``."""

    pubmed = "pubmed"
    europepmc = "europepmc"
    #: Crossref's update relations: a retraction notice that updates the work (its ``updated-by``, or the notice's
    #: ``update-to`` naming it)
    crossref = "crossref"
    #: OpenAlex's ``is_retracted``
    openalex = "openalex"
    #: an entry stored by an earlier pubfetch said "retracted" without saying which source did
    earlier = "earlier"


@dataclass(frozen=True)
class RetractionVerdict:
    """What one answer of a source says: the paper is retracted, or (``retracted`` false) it is not."""

    source: RetractionSource
    retracted: bool


def says_retracted(pub_types: Iterable[str], updates: Iterable[Update]) -> bool:
    """Whether a record's publication types or update links say the paper was retracted."""
    return (any(t.strip().lower() == RETRACTED_TYPE for t in pub_types)
            or any(u.type in RETRACTED_BY for u in updates))


class RetractionFlags:
    """The latest verdict of each source that gave one."""

    def __init__(self, flags: Mapping[RetractionSource, bool] | None = None) -> None:
        self._flags: dict[RetractionSource, bool] = dict(flags or {})

    def set(self, verdict: RetractionVerdict) -> None:
        """Take a source's verdict in place of its earlier one (and of an earlier pubfetch's unattributed one)."""
        if verdict.source is not RetractionSource.earlier:
            self._flags.pop(RetractionSource.earlier, None)
        self._flags[verdict.source] = verdict.retracted

    @property
    def retracted(self) -> bool:
        return any(self._flags.values())

    def sources(self) -> list[RetractionSource]:
        """The sources saying the paper was retracted."""
        return [source for source, flag in self._flags.items() if flag]

    def to_json(self) -> dict[str, bool]:
        return {source.value: flag for source, flag in self._flags.items()}

    @classmethod
    def from_json(cls, d: Mapping[str, object]) -> RetractionFlags:
        """Flags as :meth:`to_json` wrote them; a source this version does not know is left out."""
        known = {source.value: source for source in RetractionSource}
        return cls({known[key]: flag for key, flag in d.items() if key in known and isinstance(flag, bool)})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RetractionFlags) and self._flags == other._flags

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RetractionFlags({self.to_json()})"
