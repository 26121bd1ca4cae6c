"""Which publication holds a paper given more than once (by PMID on one line, by DOI on another), in one batch or in
the batches in flight together: the paper is fetched once, as the publication that claimed it first."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from pubfetch.model.publication import Publication
from pubfetch.resources.pubstate import PubState

log = logging.getLogger(__name__)


def identity_keys(pub: Publication) -> list[str]:
    """The keys under which a publication is known: its PMID, PMCID and DOI."""
    return [identity_key(name, value) for name, value in (("pmid", pub.pmid.content), ("pmcid", pub.pmcid.content),
                                                          ("doi", pub.doi.content)) if value]


def identity_key(kind: str, value: str) -> str:
    """The key of one ID of a kind ("pmid", "pmcid", "doi"); DOIs are case-insensitive."""
    return f"{kind}:{value.lower()}"


class Claims:
    """Which publication holds a paper, by PMID, PMCID and DOI, across the batches in flight together (fetch_many
    overlaps a batch with the next one): a paper given twice, in one batch or in two neighbouring ones, is fetched
    once. A batch's claims are kept until every batch read from the database while it was in flight is done (the caller
    says when: :meth:`forget`), so this holds the claims of a few batches, never the run's."""

    def __init__(self) -> None:
        self._owners: dict[str, tuple[PubState, int]] = {}
        self._lock = threading.Lock()

    def claim(self, states: Sequence[PubState], batch: int, scope: str = "") -> None:
        """Mark each of ``states`` (of batch number ``batch``) whose paper an earlier-claimed one of the same ``scope``
        (a queued job) holds as the same publication (it stops: its thread sees ``same_as``); claim the others' IDs."""
        with self._lock:
            for state in states:
                keys = [f"{scope}\n{key}" for key in identity_keys(state.pub)]
                first = next((self._owners[k][0] for k in keys if k in self._owners), None)
                if first is not None and first is not state:
                    log.info("%s is the same publication as %s", state.pub.ids, first.pub.ids)
                    state.same_as = first.pub
                    state.keep_going = False
                    continue
                for key in keys:
                    self._owners.setdefault(key, (state, batch))

    def forget(self, batch: int) -> None:
        """Batch number ``batch`` and every batch that may not have found its papers in the database are done: a
        later line naming them finds them there."""
        with self._lock:
            self._owners = {key: owner for key, owner in self._owners.items() if owner[1] != batch}
