"""Fetch state shared by publications, webpages and docs: when to fetch again, and the retry bookkeeping.

The rules are PubFetcher's (spec section 4) so that a database shared by both tools is refetched the same way; the
clock is injected so every condition can be tested without waiting for real cooldowns.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pubfetch.console import retry_note
from pubfetch.model.timefmt import Clock, instant_human, now_ms

if TYPE_CHECKING:
    from pubfetch.fetcher_args import FetcherArgs

log = logging.getLogger(__name__)

_MINUTE_MS = 60_000


class Finality(Protocol):
    def is_empty(self) -> bool: ...

    def is_final(self, args: FetcherArgs) -> bool: ...


def _elapsed(now: int, since: int, cooldown_minutes: float) -> bool:
    return cooldown_minutes >= 0 and now >= since + cooldown_minutes * _MINUTE_MS


@dataclass
class FetchState:
    """fetchTime (epoch ms, 0 = never fetched), retryCounter and fetchException of one database entry."""

    fetch_time: int = 0
    retry_counter: int = 0
    fetch_exception: bool = False
    #: what the failures that set fetchException in this fetch were, in words (``not found``, ``refused``, ``timed
    #: out``, ``blocked``, ``transient``), with how often each came; not stored, so that an error message can say
    #: what happened instead of guessing
    failures: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def failed(self, word: str) -> None:
        """A failure of the kind ``word`` made the entry retryable later (it sets fetchException)."""
        self.fetch_exception = True
        self.failures[word] = self.failures.get(word, 0) + 1

    @property
    def fetch_time_human(self) -> str:
        return instant_human(self.fetch_time)

    def _cooldown_reason(self, entry: Finality, args: FetcherArgs, now: int) -> str | None:
        """Which of PubFetcher's conditions 1-4 holds (first fetch or a cooldown has passed), if any."""
        if self.fetch_time == 0:
            return "first fetch"
        empty = entry.is_empty()
        if empty and _elapsed(now, self.fetch_time, args.empty_cooldown):
            return f"empty for more than {args.empty_cooldown} min"
        if not empty and not entry.is_final(args) and _elapsed(now, self.fetch_time, args.non_final_cooldown):
            return f"non-final for more than {args.non_final_cooldown} min"
        if self.fetch_exception and _elapsed(now, self.fetch_time, args.fetch_exception_cooldown):
            return f"fetch exception more than {args.fetch_exception_cooldown} min ago"
        return None

    def retried_later(self, args: FetcherArgs) -> bool:
        """Whether a later fetch fetches this entry again once fetchException is set (PubFetcher's conditions 4 and
        5): after a non-negative fetchExceptionCooldown, or while retries are left under retryLimit."""
        return args.fetch_exception_cooldown >= 0 or args.retry_limit < 0 or self.retry_counter < args.retry_limit

    def retry_words(self, args: FetcherArgs) -> str:
        """What a line about a failure says of this entry's next fetch: that a later one retries it when the entry is
        marked (fetchException), that the failure brings none when the retry rules forbid it (an empty or non-final
        entry may still come back after its own cooldown), else that it is not retried."""
        if not self.fetch_exception:
            return "not retried"
        return retry_note(self.retried_later(args))

    def _retry_allowed(self, entry: Finality, args: FetcherArgs) -> bool:
        incomplete = entry.is_empty() or not entry.is_final(args) or self.fetch_exception
        return incomplete and (self.retry_counter < args.retry_limit or args.retry_limit < 0)

    def eligible_again(self, entry: Finality, args: FetcherArgs) -> tuple[int, str] | None:
        """When an incomplete entry whose retries are used up may be fetched again (epoch ms) and the cooldown option
        that decides it; None when no cooldown will ever allow it (a negative one)."""
        empty = entry.is_empty()
        due = []
        if empty and args.empty_cooldown >= 0:
            due.append((self.fetch_time + int(args.empty_cooldown * _MINUTE_MS), "--emptyCooldown"))
        if not empty and not entry.is_final(args) and args.non_final_cooldown >= 0:
            due.append((self.fetch_time + int(args.non_final_cooldown * _MINUTE_MS), "--nonFinalCooldown"))
        if self.fetch_exception and args.fetch_exception_cooldown >= 0:
            due.append((self.fetch_time + int(args.fetch_exception_cooldown * _MINUTE_MS), "--fetchExceptionCooldown"))
        return min(due) if due else None

    def can_fetch(self, entry: Finality, args: FetcherArgs, clock: Clock = now_ms) -> bool:
        now = clock()
        reason = self._cooldown_reason(entry, args, now)
        if reason is None and self._retry_allowed(entry, args):
            reason = f"retry count {self.retry_counter} below limit {args.retry_limit}"
        if reason:
            log.debug("can fetch: %s", reason)
            return True
        log.debug("can not fetch: fetched %s, retry count %d", self.fetch_time_human, self.retry_counter)
        return False

    def update_counters(self, entry: Finality, args: FetcherArgs, clock: Clock = now_ms) -> bool:
        """Record a fetch attempt: a fresh fetch restarts the retry count, a retry within the cooldown increments it."""
        now = clock()
        if self._cooldown_reason(entry, args, now) is not None:
            self.fetch_time = now
            self.retry_counter = 0
            return True
        if self._retry_allowed(entry, args):
            self.retry_counter += 1
            return True
        return False

    def to_json(self) -> dict:
        return {
            "fetchTime": self.fetch_time,
            "fetchTimeHuman": self.fetch_time_human,
            "retryCounter": self.retry_counter,
            "fetchException": self.fetch_exception,
        }

    @classmethod
    def from_json(cls, d: dict) -> FetchState:
        return cls(int(d.get("fetchTime", 0)), int(d.get("retryCounter", 0)), bool(d.get("fetchException", False)))
