"""A snowball: the seed papers fetched, then the papers linked to them (citing them, ``citations``; cited by them,
``expand_references``), then the papers linked to those, to ``depth`` steps.

Each step is a whole level: the links of every paper of the level before are read, the papers they name that the
run does not hold yet (by any ID form: :class:`~pubfetch.snowball.papers.PaperIndex`) are counted and, unless they
would take the run past ``max_hits``, fetched together as one stream of batches through the same run (its client,
rate limits, claims and database), so a level costs what a list of its IDs would. The edges (which paper cites
which, and who said so) are kept with every ID form known once both ends are fetched, and stored in the run's
database level by level. What was identified, and how many of those were papers already in the run, is counted
into the run's :class:`~pubfetch.engine.summary.BatchSummary` for a review's flow diagram.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from pubfetch.engine.summary import BatchSummary
from pubfetch.ids import PublicationIds
from pubfetch.model.edges import CitationEdge
from pubfetch.model.publication import Publication
from pubfetch.resources.base import Context
from pubfetch.snowball.links import Links, citing_europepmc, citing_pubmed, referenced
from pubfetch.snowball.papers import PaperIndex
from pubfetch.store import Store

__all__ = ["DEFAULT_MAX_HITS", "SEEDS", "SnowballPlan", "SnowballTooLarge", "snowball"]

#: the most publications a snowball (or a search) may bring to a run unless told otherwise (``--max-hits``)
DEFAULT_MAX_HITS = 100_000
#: the label of the papers a run was given, among the counts of what it identified (not counted when the run's
#: summary already counts what identified them: a search's rows)
SEEDS = "given"

#: fetches a level's IDs through the run, yielding each publication as it is done
FetchLevel = Callable[[list[PublicationIds]], Iterator[Publication]]


@dataclass(frozen=True)
class SnowballPlan:
    """Which links a snowball follows, how far, and the most publications it may bring the run to."""

    citations: bool = False
    expand_references: bool = False
    depth: int = 1
    max_hits: int = DEFAULT_MAX_HITS

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise ValueError(f"depth must be at least 1 (a step of links), got {self.depth}")
        if self.max_hits < 1:
            raise ValueError(f"max_hits must be at least 1, got {self.max_hits}")

    @property
    def follows(self) -> bool:
        return self.citations or self.expand_references


class SnowballTooLarge(ValueError):
    """A level would take the run past ``max_hits`` publications; nothing of that level was fetched."""

    def __init__(self, depth: int, new: int, total: int, max_hits: int) -> None:
        super().__init__(f"the snowball's depth {depth} would bring the run to as many as {total:,} publications "
                         f"({new:,} IDs new at that depth), more than --max-hits {max_hits:,}; nothing of depth "
                         f"{depth} was fetched: raise --max-hits or lower --depth")
        self.depth, self.new, self.total, self.max_hits = depth, new, total, max_hits


#: the edge source and the label of the identified counts of each kind of link
_CITED_BY_EPMC = ("europepmc_citations", "Europe PMC citations")
_CITED_BY_PUBMED = ("pubmed_citedin", "PubMed citations")
_REFERENCES = ("references", "references")


class _Walk:
    """One snowball's state: the papers by ID form, each paper's reference links, the edges not yet stored."""

    def __init__(self, ctx: Context, plan: SnowballPlan, store: Store | None, summary: BatchSummary,
                 edges_out: list[CitationEdge] | None) -> None:
        self.ctx, self.plan, self.store, self.summary, self.edges_out = ctx, plan, store, summary, edges_out
        self.index = PaperIndex()
        self.references: dict[int, Links] = {}
        self.pending: list[tuple[int, int, str]] = []  # (citing, cited, source) by paper number
        self.stored: set[tuple[int, int, str]] = set()
        #: Europe PMC's citers of each paper of the level, asked as soon as the paper is fetched: while the level's
        #: last papers wait for other hosts, Europe PMC's connection reads the links of those done
        self.early: dict[int, Future[Links]] = {}
        self.pool = ThreadPoolExecutor(max(1, ctx.config.run.threads), thread_name_prefix="pubfetch-snowball") \
            if plan.citations else None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def identified(self, label: str, count: int) -> None:
        self.summary.identified[label] = self.summary.identified.get(label, 0) + count

    def fetched(self, asked: list[int], pubs: Iterator[Publication], follow: bool) -> Iterator[Publication]:
        """The level's publications, each paper once (with ``follow``, its Europe PMC citers asked at once). Papers
        filed apart that their fetched IDs show to be one (met as a PMCID and as a PMID in one level) are counted as
        duplicates: the engine fetches and stores such a paper once, and one that still comes twice is yielded
        once."""
        yielded: set[int] = set()
        for pub in pubs:
            key = self.index.find(pub.ids)
            key = self.index.add(pub.ids)[0] if key is None else self.index.learn(key, pub.ids)
            if any(self.index.same(key, k) for k in yielded):
                continue
            yielded.add(key)
            if self.plan.expand_references:
                self.references[key] = referenced(pub)
            if follow and self.pool is not None:
                self.early[key] = self.pool.submit(citing_europepmc, self.ctx, self.index.ids(key))
            yield pub
        self.summary.duplicates += len(asked) - len(self.index.roots(asked))

    def links(self, level: list[int], depth: int) -> list[int]:
        """Read the links of ``level``'s papers; the papers new to the run they lead to (filed, not fetched)."""
        found: list[tuple[int, PublicationIds, bool, tuple[str, str]]] = []  # (paper, other end, it cites it, kind)
        if self.plan.citations:
            late = [k for k in level if k not in self.early]
            asked_late = dict(zip(late, self.ctx.map(lambda k: citing_europepmc(self.ctx, self.index.ids(k)), late),
                                  strict=True))
            for key in level:
                early = self.early.pop(key, None)
                links = early.result() if early is not None else asked_late[key]
                found.extend((key, ids, False, _CITED_BY_EPMC) for ids in links.found)
            self.early.clear()
            pmids = {self.index.ids(k).pmid: k for k in level if self.index.ids(k).pmid}
            cited_by, _ = citing_pubmed(self.ctx, list(pmids))
            for pmid, citers in cited_by.items():
                if pmid in pmids:
                    found.extend((pmids[pmid], PublicationIds(pmid=c), False, _CITED_BY_PUBMED) for c in citers)
        if self.plan.expand_references:
            for key in level:
                refs = self.references.pop(key, None)
                found.extend((key, ids, True, _REFERENCES) for ids in (refs.found if refs else ()))
        new: list[int] = []
        counts: dict[str, int] = {}
        for key, ids, cites, (source, label) in found:
            counts[label] = counts.get(label, 0) + 1
            other, is_new = self.index.add(ids)
            if is_new:
                new.append(other)
            else:
                self.summary.duplicates += 1
            self.pending.append((key, other, source) if cites else (other, key, source))
        for label, count in counts.items():
            self.identified(f"{label} at depth {depth}", count)
        return new

    def known_references(self, level: list[int]) -> None:
        """The last level's reference links to papers the run already holds: edges that cost no request and bring
        no paper."""
        for key in level:
            refs = self.references.pop(key, None)
            for ids in refs.found if refs else ():
                other = self.index.find(ids)
                if other is not None:
                    self.pending.append((key, other, _REFERENCES[0]))

    def flush(self, unfetched: frozenset[int] = frozenset()) -> None:
        """Store the pending edges whose two ends were fetched, each with every ID form known now."""
        edges: list[CitationEdge] = []
        keep: list[tuple[int, int, str]] = []
        for citing, cited, source in self.pending:
            if citing in unfetched or cited in unfetched:
                keep.append((citing, cited, source))
                continue
            ids_citing, ids_cited = self.index.ids(citing), self.index.ids(cited)
            if ids_citing == ids_cited:
                continue  # a paper listed among its own citers or references
            edge = CitationEdge(ids_citing, ids_cited, source)
            done = (edge.citing.ids, edge.cited.ids, source)
            if done not in self.stored:
                self.stored.add(done)  # type: ignore[arg-type]
                edges.append(edge)
        self.pending = keep
        if self.store is not None and edges:
            self.store.put_edges(edges)
        if self.edges_out is not None:
            self.edges_out.extend(edges)


def snowball(ctx: Context, seeds: Iterable[PublicationIds], plan: SnowballPlan, fetch_level: FetchLevel, *,
             store: Store | None, summary: BatchSummary, edges: list[CitationEdge] | None = None
             ) -> Iterator[Publication]:
    """Fetch ``seeds``, then follow ``plan``'s links to its depth, yielding every paper once as it is fetched.

    ``fetch_level`` fetches a list of IDs through the run; ``store`` (the run's database, or None) receives the edges
    level by level, ``edges`` (a list, or None) too. Raises :class:`SnowballTooLarge` before fetching a level that
    would take the run past ``plan.max_hits`` (what earlier levels fetched is stored, with their edges).
    """
    walk = _Walk(ctx, plan, store, summary, edges)
    try:
        yield from _levels(walk, list(seeds), fetch_level)
    finally:
        walk.close()


def _levels(walk: _Walk, given: list[PublicationIds], fetch_level: FetchLevel) -> Iterator[Publication]:
    plan, summary = walk.plan, walk.summary
    if not summary.identified:  # else what found the seeds (a search) counted them already
        walk.identified(SEEDS, len(given))
    level = [walk.index.add(ids)[0] for ids in given]
    summary.duplicates += len(given) - len(set(level))
    level = walk.index.roots(level)
    yield from walk.fetched(level, fetch_level([walk.index.ids(k) for k in level]), plan.depth > 0)
    for depth in range(1, plan.depth + 1):
        new = walk.links(level, depth)
        if len(walk.index) > plan.max_hits:
            walk.flush(frozenset(new))
            raise SnowballTooLarge(depth, len(new), len(walk.index), plan.max_hits)
        yield from walk.fetched(new, fetch_level([walk.index.ids(k) for k in new]), depth < plan.depth)
        walk.flush()
        level = walk.index.roots(new)
    if plan.expand_references:
        walk.known_references(level)
        walk.flush()
