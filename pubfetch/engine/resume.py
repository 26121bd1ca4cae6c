"""Where a publication's fetch stopped, so that the end-of-run retry asks only what failed.

PubFetcher fetches every entry that ended with fetchException once more at the end of a run, walking the whole chain
again: every service that had answered is asked the same question again. Here a publication leaves its fetch with the
flags of every resource that asked (so those that answered stay answered), the links it had still queued and tried,
and what failed in a way worth one more try (:func:`~pubfetch.resources.pubstate.worth_asking_again`): those flags are
cleared and those links queued again. The retry then walks the chain with these flags: it asks the failed resources
and whatever their answers newly open up, and nothing else. A publication with nothing worth asking again (its
failures were answers, like a 404, or a bot gate) is not retried in this run; fetchException retries it in a later one.
The retry starts each publication without fetchException, as every fetch does, but with the marks of the failures it
does not ask again (:attr:`Resume.lasting`): whatever the retry gets, those are still unanswered, and an entry whose
mark the retry dropped would be final with their holes and never fetched again.

A resume is plain JSON, so that the retry list can wait on disk instead of in memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from pubfetch.model.publication import Publication
from pubfetch.resources.links import Links
from pubfetch.resources.pubstate import PubFlag, PubState

__all__ = ["Resume", "RetryEntry"]


class RetryEntry(TypedDict):
    """A publication left to the end-of-run retry, as JSON (so that the list can wait on disk or in a queue's
    results store): the entry as it ended, where its fetch stopped, and the pages and PDFs it rejected as another
    paper's on the way (the run summary counts them when the retry reports it)."""

    #: ``Publication.to_json(computed=False)``
    pub: dict[str, Any]
    #: :meth:`Resume.to_json`
    resume: dict[str, Any]
    #: ``Publication.new_rejections`` of the pass that deferred it (absent: none)
    rejections: NotRequired[int]


@dataclass
class Resume:
    """A publication's fetch state for the end-of-run retry."""

    #: the flags the retry starts with: what asked, minus what is to be asked again
    flags: frozenset[PubFlag] = frozenset()
    #: the link queue (``Links.to_json``) with the failed links queued again
    links: dict[str, list[Any]] = field(default_factory=dict)
    #: what is asked again (flags and link URLs): empty means there is nothing to retry in this run
    again: tuple[str, ...] = ()
    #: not to be asked before this time (epoch seconds), from the servers' Retry-After
    not_before: float = 0.0
    #: the failures that marked the entry and are not asked again, in words (``PubState.lasting``): the retry keeps
    #: their marks
    lasting: tuple[str, ...] = ()

    @classmethod
    def of(cls, state: PubState) -> Resume:
        """Where ``state`` stopped."""
        links = Links.from_json(state.links.to_json())
        for link in state.again_links:
            links.again(link)
        again = tuple(sorted(flag.value for flag in state.again_flags)) + tuple(link.url for link in state.again_links)
        return cls(frozenset(state.flags - state.again_flags), links.to_json(), again, state.not_before,
                   tuple(state.lasting))

    @property
    def worth_retrying(self) -> bool:
        return bool(self.again)

    def state_for(self, pub: Publication) -> PubState:
        """A fresh state of ``pub`` that starts where the failed fetch stopped."""
        return PubState(pub, links=Links.from_json(self.links), flags=set(self.flags), lasting=list(self.lasting))

    def to_json(self) -> dict[str, Any]:
        return {"flags": sorted(flag.value for flag in self.flags), "links": self.links, "again": list(self.again),
                "notBefore": self.not_before, "lasting": list(self.lasting)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Resume:
        return cls(frozenset(PubFlag(flag) for flag in doc.get("flags", [])), doc.get("links", {}),
                   tuple(doc.get("again", [])), float(doc.get("notBefore", 0.0)), tuple(doc.get("lasting", [])))

