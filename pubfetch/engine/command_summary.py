"""The summary of a command of several publication fetching steps (``-fetch -db-fetch-end DB``, say): each paper is
counted once, by the outcome of the last step that got it, however many steps got it.

Each step reports every paper it was given, so counting the steps' reports as a single run would count a paper once
per step ("2 publications" for one). :class:`CommandSummary` remembers what each paper added to the counts (by any of
its IDs, as the end-of-batch identities do) and takes that back when a later step reports the paper again. A paper
one step asked of the services is *fetched* in the command even when a later step read it back from the database.
The pages rejected as another paper's are events of the run, counted in every step that read them. A step sent
to ``--queue`` workers counts the papers its job's results list, each by its IDs (:meth:`CommandSummary.count_paper`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields

from pubfetch.engine.claims import identity_key, identity_keys
from pubfetch.engine.summary import BatchSummary, merged_count
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import is_doi, is_pmcid, is_pmid
from pubfetch.model.publication import Publication

#: the counts one paper adds to: taken back when a later step reports the paper again
_PER_PAPER = ("total", "fetched", "skipped", "final", "not_final", "fetch_exception", "empty", "failed",
              "retry_limited", "final_retried", "with_fulltext")
#: the earliest or latest dates and the most retries of the papers: worked out again from the papers' last counts
_OF_PAPERS = ("final_retries_left", "final_retried_at")


class CommandSummary(BatchSummary):
    """A :class:`BatchSummary` that counts each paper once across the fetching steps of one command."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._paper_of: dict[str, int] = {}  # an identity key (pmid:..., doi:...) -> the paper's number
        self._counted: dict[int, BatchSummary] = {}  # a paper's number -> what it added to the counts
        self._recounted = False  # a paper was counted again: the dates and options are worked out at the end
        self._papers = 0

    def count(self, pub: Publication, args: FetcherArgs, fetched: bool) -> None:
        mine = BatchSummary()
        mine.parts = self.parts
        mine.count(pub, args, fetched)
        self.count_paper(identity_keys(pub), mine)

    def count_paper(self, keys: list[str], mine: BatchSummary) -> None:
        """Count a paper known by ``keys`` (:func:`paper_keys`) as ``mine`` says (a one-paper summary: a queued job's
        workers count their papers so), taking back what an earlier step counted of it."""
        earlier = sorted({self._paper_of[k] for k in keys if k in self._paper_of})
        if not earlier:
            self._papers += 1
        number = earlier[0] if earlier else self._papers
        for paper in earlier:
            old = self._counted.pop(paper)
            for name in _PER_PAPER:
                setattr(self, name, getattr(self, name) - getattr(old, name))
            if old.fetched and not mine.fetched:  # asked of the services by an earlier step of the command
                mine.fetched, mine.skipped = 1, 0
        for name in (*_PER_PAPER, "rejected_sites"):
            setattr(self, name, getattr(self, name) + getattr(mine, name))
        if earlier:
            self._recounted = True
        else:
            self._add_dates(mine)
        self._counted[number] = mine
        for key in keys:
            self._paper_of[key] = number
        if len(earlier) > 1:  # IDs of two papers counted apart turned out to be one paper's (rare: a full pass)
            for paper_key, paper in list(self._paper_of.items()):
                if paper in earlier:
                    self._paper_of[paper_key] = number

    def _add_dates(self, mine: BatchSummary) -> None:
        by_name = {f.name: f for f in fields(self)}
        for name in _OF_PAPERS:
            setattr(self, name, merged_count(by_name[name], getattr(self, name), getattr(mine, name)))
        # the first time a paper is eligible again, as one run finds it (BatchSummary._retry_limited)
        at = [t for t in (self.eligible_at, mine.eligible_at) if t]
        self.eligible_at = min(at) if at else 0
        self.eligible_options |= mine.eligible_options

    def line(self) -> str:
        if self._recounted:
            self.eligible_at = self.final_retries_left = self.final_retried_at = 0
            self.eligible_options = set()
            for mine in self._counted.values():
                self._add_dates(mine)
            self._recounted = False
        return super().line()


def paper_keys(ids: Iterable[str]) -> list[str]:
    """The identity keys of a paper given by its IDs alone (PMID, PMCID, DOI in any order, as a queued job's results
    list them), as :func:`~pubfetch.engine.claims.identity_keys` gives those of a publication."""
    keys = []
    for value in ids:
        kind = "pmid" if is_pmid(value) else "pmcid" if is_pmcid(value) else "doi" if is_doi(value) else None
        if kind is not None:
            keys.append(identity_key(kind, value))
    return keys
