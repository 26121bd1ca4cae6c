"""A publication's finality judged by the parts a run asks for (``--fetch-part`` / ``--not-fetch-part``).

PubFetcher's isFinal looks at the title, the abstract and the full text whatever was asked, so an abstracts-only run
would call every paper without an open full text unfinished, fetch it again on every re-run and end as if it failed.
A run that asks for some parts is judged by those: by the deciding parts (title, abstract, full text) among them, or,
when it asks for none of those (``--fetch-part keywords mesh``, IDs only), by every part it asks for; empty when
the parts judged are all empty. The fetch
state's rules (can-fetch, the retry counters) and the run's summary use this view; what is stored is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pubfetch.model.part_type import PartName

if TYPE_CHECKING:
    from pubfetch.fetcher_args import FetcherArgs
    from pubfetch.model.entry import Finality
    from pubfetch.model.publication import Publication

#: the parts whose finality makes a publication final (PubFetcher's isFinal)
DECIDING_PARTS = (PartName.title, PartName.theAbstract, PartName.fulltext)


class AskedParts:
    """A publication seen through the parts a run asks for: final when each of :attr:`judged` is final."""

    def __init__(self, pub: Publication, judged: Iterable[PartName]) -> None:
        self.pub = pub
        self.judged = tuple(judged)

    def is_empty(self) -> bool:
        """Empty when every judged part is: a publication's own emptiness looks at its content parts only, so an
        IDs-only run (``--fetch-part pmid``) would find every paper empty and fetch it again on every re-run."""
        return all(self.pub.part(name).is_empty() for name in self.judged)

    def is_final(self, args: FetcherArgs) -> bool:
        return all(self.pub.part(name).is_final(args) for name in self.judged)


def asked_parts(pub: Publication, parts: Iterable[PartName] | None) -> Finality:
    """``pub`` itself when the run asks for every deciding part (``parts`` None: all parts), else its
    :class:`AskedParts` view."""
    if parts is None:
        return pub
    asked = frozenset(parts)
    deciding = [name for name in DECIDING_PARTS if name in asked]
    if len(deciding) == len(DECIDING_PARTS):
        return pub
    return AskedParts(pub, deciding or [name for name in PartName if name in asked])
