"""Europe PMC's references endpoint, asked only with ``--references`` (``references=True``): the reference list of
a paper whose full text and PubMed record gave none (no JATS ``ref-list``, no ``ReferenceList``).

Asked last in the chain, so that the answers already received had their chance; only for a paper the Europe PMC
search said has references (or that no search record described); by PMID (source MED), else by PMCID (source PMC).
The endpoint pages its answer: page after page of :data:`PAGE_SIZE` until the announced count is reached, one
request per page, at most :data:`MAX_PAGES`; the requests go through the client's rate limits like every other.
What the pages hold is not taken on trust: references are kept once (:class:`~pubfetch.model.rich.ReferenceSet`),
at most ``max_references`` of them (no page is asked past those), and a page that brings no reference not already
read (a service repeating its pages) ends the paging.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from pubfetch.extract.europepmc_references import ReferencePage, parse_references_json
from pubfetch.model.part_type import PartType
from pubfetch.model.rich import ReferenceSet, RichName
from pubfetch.resources.base import Context
from pubfetch.resources.pubstate import PubFlag, PubState, entry_policy, mark_unreadable

log = logging.getLogger(__name__)

__all__ = ["MAX_PAGES", "PAGE_SIZE", "fetch_references", "wants_references"]

#: references per page (the service's largest page)
PAGE_SIZE = 1000
#: pages asked per paper at most: a review cites hundreds, never tens of thousands
MAX_PAGES = 10


def wants_references(ctx: Context, state: PubState) -> bool:
    pub = state.pub
    if not ctx.config.run.references or state.has(PubFlag.EPMC_REFERENCES) or not pub.references.is_empty():
        return False
    said = state.has(PubFlag.EPMC_HAS_REFERENCES) or not state.has(PubFlag.EUROPEPMC)
    return said and bool(pub.pmid.content or pub.pmcid.content)


def fetch_references(ctx: Context, states: Sequence[PubState]) -> None:
    todo = [state for state in states if wants_references(ctx, state)]
    for state in todo:
        state.set(PubFlag.EPMC_REFERENCES)
    ctx.map(lambda state: _one(ctx, state), todo)


def _one(ctx: Context, state: PubState) -> None:
    pub = state.pub
    source, cited = ("MED", pub.pmid.content) if pub.pmid.content else ("PMC", pub.pmcid.content)
    url = f"{ctx.endpoints.europepmc}{source}/{cited}/references"
    paging = _Paging(f"{source} {cited}", ctx.config.run.max_references)
    for page in range(1, MAX_PAGES + 1):
        answer = _page(ctx, state, url, page, paging.whose)
        if answer is None:
            return  # a list cut short is not kept: the part would look complete
        if paging.ends_with(answer, page):
            break
    else:
        log.warning("references of %s not complete after %d pages; kept the %d distinct ones read", paging.whose,
                    MAX_PAGES, len(paging.found))
    if paging.found.items:
        pub.set_rich(RichName.references, paging.found.items, PartType.europepmc, f"{url}?format=json")


def _page(ctx: Context, state: PubState, url: str, page: int, whose: str) -> ReferencePage | None:
    """One page of the references, or None when it failed (the run is told why)."""
    result = ctx.client.get(url, params={"page": str(page), "pageSize": str(PAGE_SIZE), "format": "json"},
                            publication=True, headers={"Accept": "application/json"},
                            entry=entry_policy(ctx.args, [state], service=True))
    if not result.ok:
        state.fail(result, PubFlag.EPMC_REFERENCES)
        return None
    try:
        return parse_references_json(result.text or "")
    except ValueError as e:
        log.warning("unreadable Europe PMC references of %s: %s%s", whose, e, mark_unreadable(ctx.args, [state]))
        return None


@dataclass
class _Paging:
    """The references read so far of one paper (``whose``: its source and ID), kept once each and at most ``cap``."""

    whose: str
    cap: int
    found: ReferenceSet = field(default_factory=ReferenceSet)
    listed: int = 0

    def ends_with(self, answer: ReferencePage, page: int) -> bool:
        """Keep the page's references; whether the paging ends with it (the cap reached, a page of nothing new, the
        announced count listed), saying so when it ends early."""
        self.listed += len(answer.references)
        repeats = self.found.repeats
        new = read = 0
        for ref in answer.references:
            if len(self.found) >= self.cap:
                break
            new += self.found.add(ref)
            read += 1
        if len(self.found) >= self.cap and (read < len(answer.references) or (answer.hit_count or 0) > self.listed):
            log.warning("Europe PMC lists more than %d references of %s (%d listed so far, %s announced); kept the "
                        "first %d (the max_references setting: raise it to keep more)", self.cap, self.whose,
                        self.listed, answer.hit_count if answer.hit_count is not None else "no count", self.cap)
            return True
        if answer.references and not new:
            self._say_nothing_new(page, repeated=self.found.repeats > repeats)
            return True
        return not answer.references or self.listed >= (answer.hit_count or 0)

    def _say_nothing_new(self, page: int, repeated: bool) -> None:
        if repeated:
            log.warning("page %d of Europe PMC's references of %s holds no reference not already read (the service "
                        "repeats its pages); kept the %d distinct ones read", page, self.whose, len(self.found))
        else:
            log.warning("page %d of Europe PMC's references of %s holds no usable reference (none has an ID, a title "
                        "or a text); kept the %d distinct ones read", page, self.whose, len(self.found))
