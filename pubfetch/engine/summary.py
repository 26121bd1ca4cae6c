"""How a fetching run ended: the counts of its entries by outcome, and the error of a publication that got nothing
because of transient failures."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.publication import Publication

if TYPE_CHECKING:
    from pubfetch.net.counts import RequestCounts


@dataclass
class BatchSummary:
    """How a run ended: counts of entries by outcome (what the CLI's summary line and exit status report).

    ``failed`` entries got nothing usable or ended with a transient failure (fetchException); ``partial`` ones are
    neither final nor failed. ``retry_limited`` entries are incomplete and used up their retries: a re-run skips them
    until ``eligible_at`` (epoch ms), or at once with the cooldown options of ``eligible_options`` set to 0.
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

    def __post_init__(self) -> None:
        #: requests, failures and 429s per host of the client that fetched (set by fetch_many; for the run report).
        #: Not a field: the counts are plain numbers that dataclasses.asdict turns into JSON for the distributed
        #: workers, and these live counters are neither copyable nor JSON.
        self.requests: RequestCounts | None = None

    @property
    def partial(self) -> int:
        return self.not_final - self.failed

    def count(self, pub: Publication, args: FetcherArgs, fetched: bool) -> None:
        self.total += 1
        if fetched:
            self.fetched += 1
        else:
            self.skipped += 1
        if pub.is_final(args):
            self.final += 1
        else:
            self.not_final += 1
            if pub.state.fetch_exception or pub.is_empty():
                self.failed += 1
            if not pub.state.can_fetch(pub, args):
                self._retry_limited(pub.state.eligible_again(pub, args))
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

    def line(self) -> str:
        """The line that closes a fetching run: ``37 publications: 30 fetched, 7 skipped; 24 final, 13 partial, 0
        failed``, the pages and PDFs rejected as another paper's when there were some, and when some reached the retry
        limit, when they become eligible again."""
        text = (f"{self.total} publications: {self.fetched} fetched, {self.skipped} skipped; {self.final} final, "
                f"{self.partial} partial, {self.failed} failed")
        if self.rejected_sites:
            pages = "page or PDF" if self.rejected_sites == 1 else "pages and PDFs"
            text += f"; {self.rejected_sites} {pages} rejected as another paper's (see rejectedSites)"
        if self.retry_limited:
            text += f"; {self.retry_limited} reached the retry limit"
            if self.eligible_at:
                when = datetime.fromtimestamp(self.eligible_at / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
                options = " ".join(f"{o} 0" for o in sorted(self.eligible_options))
                text += f"; eligible again after {when} or with {options}"
        return text


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


def failed_transiently(pub: Publication) -> bool:
    """Whether a fetch gave nothing but a transient failure (what :class:`FetchError` reports)."""
    return pub.state.fetch_exception and pub.is_empty()
