"""How a fetching run ended: the counts of its entries by outcome, and the error of a publication that got nothing
because of transient failures."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.asked_parts import asked_parts
from pubfetch.model.entry import Finality
from pubfetch.model.part_type import PartName
from pubfetch.model.publication import Publication
from pubfetch.textutil import counted

if TYPE_CHECKING:
    from pubfetch.net.counts import RequestCounts


@dataclass
class BatchSummary:
    """How a run ended: counts of entries by outcome (what the CLI's summary line and exit status report).

    ``failed`` entries got nothing usable (no service knew the paper: :func:`got_nothing`) or, not final, hold a
    failed request that marked them (fetchException, retried later when the retry rules allow); ``partial`` ones are
    neither final nor failed: they lack only what no service had (a run asking for the full text alone of a paywalled
    paper is partial, not failed). ``retry_limited`` entries are incomplete and used up their retries: a re-run skips
    them until ``eligible_at`` (epoch ms), or at once with the cooldown options of ``eligible_options`` set to 0.
    ``final_retried`` entries are final but a request for them failed (a 404 from a publisher page, a 503, a
    timeout): PubFetcher's rules fetch them again, up to ``final_retries_left`` more times (-1: on every run; the
    end-of-run retry of a run counts as one) and after ``final_retried_at`` (epoch ms; 0: never), which the line says
    so that a re-run fetching "complete" papers is no surprise. Finality is judged by ``parts``, the parts the run
    asks for (None: all).

    The counts a systematic review reports (a PRISMA flow diagram): ``identified`` records found, by where they came
    from (the IDs given, a search and its query, a snowball's links at each depth), ``duplicates`` of those that named
    a paper already in the run (by any ID form), ``skipped`` ones already in the database, ``fetched``,
    final / partial / failed, and ``with_fulltext`` (a usable full text).
    """

    total: int = 0
    fetched: int = 0
    skipped: int = 0
    final: int = 0
    not_final: int = 0
    fetch_exception: int = 0
    empty: int = 0
    failed: int = 0
    retry_limited: int = 0
    #: pages and PDFs not merged because they are another paper's (``rejectedSites``), in this run
    rejected_sites: int = 0
    eligible_at: int = 0
    eligible_options: set[str] = field(default_factory=set)
    final_retried: int = 0
    final_retries_left: int = field(default=0, metadata={"merge": "max"})
    final_retried_at: int = field(default=0, metadata={"merge": "earliest"})
    with_fulltext: int = 0
    duplicates: int = 0
    #: records identified by source (``given``, ``Europe PMC citations at depth 1``, a search's query ...), in the
    #: order first counted; empty when the run was given IDs and did nothing else to find papers
    identified: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        #: requests, failures and 429s per host of the client that fetched (set by fetch_many; for the run report).
        #: Not a field: the counts are plain numbers that dataclasses.asdict turns into JSON for the distributed
        #: workers, and these live counters are neither copyable nor JSON.
        self.requests: RequestCounts | None = None
        #: the publication parts the run asks for (``--fetch-part``), which finality is judged by (None: all)
        self.parts: frozenset[PartName] | None = None

    @property
    def partial(self) -> int:
        return self.not_final - self.failed

    def count(self, pub: Publication, args: FetcherArgs, fetched: bool) -> None:
        self.total += 1
        if fetched:
            self.fetched += 1
        else:
            self.skipped += 1
        judged = asked_parts(pub, self.parts)
        if pub.fulltext.is_usable(args):
            self.with_fulltext += 1
        if judged.is_final(args):
            self.final += 1
            if pub.state.fetch_exception:
                self._final_retried(pub, judged, args)
        else:
            self.not_final += 1
            if pub.state.fetch_exception or got_nothing(pub):
                self.failed += 1
            if not pub.state.can_fetch(judged, args):
                self._retry_limited(pub.state.eligible_again(judged, args))
        if fetched:
            self.rejected_sites += pub.new_rejections
        if pub.state.fetch_exception:
            self.fetch_exception += 1
        if pub.is_empty():
            self.empty += 1

    def _retry_limited(self, eligible: tuple[int, str] | None) -> None:
        self.retry_limited += 1
        if eligible is not None:
            at, option = eligible
            self.eligible_at = min(self.eligible_at, at) if self.eligible_at else at
            self.eligible_options.add(option)

    def _final_retried(self, pub: Publication, judged: Finality, args: FetcherArgs) -> None:
        """A final entry holding a failed request, counted when a later run fetches it again (PubFetcher's rules)."""
        state = pub.state
        left = -1 if args.retry_limit < 0 else max(0, args.retry_limit - state.retry_counter)
        eligible = state.eligible_again(judged, args)
        if not state.retried_later(args):
            return  # no retry left and a negative cooldown: no run fetches it again (what its lines said too)
        self.final_retried += 1
        if left < 0 or self.final_retries_left < 0:
            self.final_retries_left = -1
        else:
            self.final_retries_left = max(self.final_retries_left, left)
        if eligible is not None:
            at = eligible[0]
            self.final_retried_at = min(self.final_retried_at, at) if self.final_retried_at else at

    def line(self) -> str:
        """The line that closes a fetching run (its wording is in docs/command-line.md, "The summary line"):
        ``37 publications: 30 fetched, 7 skipped; 24 final, 13 partial, 0 failed``, then the clauses of
        :data:`CLAUSES` that have something to say, always in that order."""
        text = (f"{counted(self.total, 'publication')}: {self.fetched} fetched, {self.skipped} skipped; "
                f"{self.final} final, {self.partial} partial, {self.failed} failed")
        return "".join([text, *(f"; {said}" for clause in CLAUSES if (said := clause(self)))])


def merged_count(f: Field[Any], current: int, value: int) -> int:
    """A count of two summaries put together (the batches of a distributed job): added up, unless the field's
    ``merge`` metadata says it is the most retries left (-1: unlimited) or the earliest time (0: none)."""
    how = f.metadata.get("merge")
    if how == "max":
        return -1 if -1 in (current, value) else max(current, value)
    if how == "earliest":
        return min(current, value) if current and value else current or value
    return current + value


def _utc(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _rejected_clause(s: BatchSummary) -> str:
    if not s.rejected_sites:
        return ""
    pages = "page or PDF" if s.rejected_sites == 1 else "pages and PDFs"
    return f"{s.rejected_sites} {pages} rejected as another paper's (see rejectedSites)"


def _retry_limit_clause(s: BatchSummary) -> str:
    if not s.retry_limited:
        return ""
    text = f"{s.retry_limited} reached the retry limit"
    if s.eligible_at:
        options = " ".join(f"{o} 0" for o in sorted(s.eligible_options))
        text += f"; eligible again after {_utc(s.eligible_at)} or with {options}"
    return text


def _final_retried_clause(s: BatchSummary) -> str:
    if not s.final_retried:
        return ""
    head = f"{s.final_retried} final with a failed request"
    if s.final_retries_left < 0:
        return f"{head}: every later run fetches them again (--retryLimit is negative)"
    times = "once more" if s.final_retries_left == 1 else f"up to {s.final_retries_left} more times"
    if s.final_retried_at and s.final_retries_left:
        return (f"{head}: later runs fetch them again, {times} and after {_utc(s.final_retried_at)} "
                "(--retryLimit, --fetchExceptionCooldown)")
    if s.final_retried_at:
        return f"{head}: later runs fetch them again after {_utc(s.final_retried_at)} (--fetchExceptionCooldown)"
    return f"{head}: later runs fetch them again, {times} (--retryLimit)"


def _identified_clause(s: BatchSummary) -> str:
    if not s.identified:
        return ""
    found = sum(s.identified.values())
    where = ", ".join(f"{count} {label}" for label, count in s.identified.items())
    return (f"identified {found} ({where}), {s.duplicates} duplicates removed, {s.skipped} already in the database; "
            f"{s.with_fulltext} with full text")


#: The clauses that follow the counts of the summary line, in their fixed order; each says nothing ("") when it has
#: nothing to count. Counts that later features add (a search's, say) are added here, at the end.
CLAUSES: tuple[Callable[[BatchSummary], str], ...] = (_rejected_clause, _retry_limit_clause, _final_retried_clause,
                                                     _identified_clause)


class FetchError(Exception):
    """Nothing could be fetched for a publication, and the failures are worth another try later (fetchException).
    The message names the kinds of failure seen (not found, refused, timed out, blocked, transient) and what to do;
    ``publication`` is what there is: its IDs and its fetch state, as stored; ``failures`` counts each kind."""

    def __init__(self, publication: Publication) -> None:
        ids = ", ".join(p.content for p in (publication.pmid, publication.pmcid, publication.doi) if p.content)
        self.failures = dict(publication.state.failures)
        seen = sorted(self.failures.items(), key=lambda kv: (-kv[1], kv[0]))
        what = ", ".join(f"{word} ({count})" for word, count in seen) or "stopped before an answer"
        super().__init__(f"nothing could be fetched for {ids}: the requests failed: {what}; {_advice(self.failures)}")
        self.publication = publication


def _advice(failures: dict[str, int]) -> str:
    """What to do about the failures of a :class:`FetchError`, for the kinds that were seen."""
    advice = []
    if "transient" in failures or not failures:
        advice.append("the network or the services may be down or busy: fetching again later may work")
    if "timed out" in failures:
        advice.append("a longer timeout may help (--timeout, in milliseconds; FetcherArgs(timeout=...) in the library)")
    if "not found" in failures or "refused" in failures:
        advice.append("the services do not know this ID or refused it: check it")
    if "blocked" in failures:
        advice.append("an address or URL was refused by the guard (see the log)")
    if "page too slow to read" in failures:
        advice.append("a longer page time limit may help (--page-time-limit, in seconds)")
    if "page too large to read" in failures:
        advice.append("a larger page memory limit may help (page_memory_limit in the config file)")
    return "; ".join(advice)


def got_nothing(pub: Publication) -> bool:
    """Whether no service said anything of the paper: no content part, no page read, no journal, date, author or
    publication type. Judged on the whole entry, not on the parts a run asks for: a ``--fetch-part fulltext`` run
    stores no title, yet the Europe PMC record that had no full text to give did name the paper's journal and date,
    so the paper is known and its full text is simply not open (partial), where an ID no service knows gets nothing."""
    return (pub.is_empty() and not pub.visited_sites and not pub.journal_title and pub.pub_date < 0
            and not pub.authors and not pub.pub_types)


def failed_transiently(pub: Publication) -> bool:
    """Whether a fetch gave nothing but a transient failure (what :class:`FetchError` reports)."""
    return pub.state.fetch_exception and pub.is_empty()
