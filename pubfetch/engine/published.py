"""``--follow-published``: the journal version of each preprint of a run is fetched too, after the input, and both are
kept, linked by their ``relations`` (the preprint ``is-preprint-of`` its journal version, which ``has-preprint`` it).

A preprint names its journal version in its relations (Crossref's ``is-preprint-of``, bioRxiv's ``published``); the
versions not in the input are fetched as a batch of their own once the input is done (one round: a journal version
is not followed further), and each is given the link back to its preprint before it is stored.
"""

from __future__ import annotations

import threading

from pubfetch.model.publication import Publication
from pubfetch.model.rich import Relation, RichName

__all__ = ["PublishedVersions"]

PREPRINT_OF = "is-preprint-of"
HAS_PREPRINT = "has-preprint"


class PublishedVersions:
    """The journal versions the run's preprints name, the DOIs the run reported, and the links to give back."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reported: set[str] = set()
        self._pending: list[str] = []
        #: journal version DOI -> its preprints' DOIs, with the provenance of the preprint's relation
        self._preprints: dict[str, list[tuple[str, Publication]]] = {}
        self.following = False

    def note(self, pub: Publication) -> None:
        """A publication reported: its DOI is done, and the journal versions its relations name are to follow (in
        the input's round only)."""
        doi = pub.doi.content.upper()
        with self._lock:
            if doi:
                self._reported.add(doi)
            if self.following or not doi:
                return
            for relation in pub.relations.items:
                if relation.type == PREPRINT_OF and relation.doi:
                    published = relation.doi.upper()
                    if published not in self._preprints:
                        self._pending.append(published)
                    self._preprints.setdefault(published, []).append((doi, pub))

    def take(self) -> list[str]:
        """The journal versions to fetch now (none the run reported already); the next round follows nothing."""
        with self._lock:
            self.following = True
            found = [doi for doi in dict.fromkeys(self._pending) if doi not in self._reported]
            self._pending = []
            return found

    def link(self, pub: Publication) -> None:
        """Give a journal version the link back to the preprints that named it (before it is stored)."""
        with self._lock:
            preprints = list(self._preprints.get(pub.doi.content.upper(), []))
        for doi, preprint in preprints:
            part = preprint.relations
            pub.join_rich(RichName.relations, [Relation(HAS_PREPRINT, doi)], part.type, part.url)
