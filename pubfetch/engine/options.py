"""What one fetching call asks of a run beside its configuration, carried down as one object.

The configuration (:class:`~pubfetch.config.FetchConfig`) says how a run fetches; these say what the caller wants
back from this call (where progress goes, whether failures are retried or handed over, what an error does). They are
checked once, where the call is made, and then read by every layer below instead of being passed on by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from pubfetch.config import FetchConfig
from pubfetch.engine.resume import RetryEntry
from pubfetch.engine.summary import BatchSummary
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.edges import CitationEdge
from pubfetch.model.part_type import PartName
from pubfetch.model.publication import Publication

__all__ = ["ERRORS", "Errors", "FetchOptions", "call_config", "checked_errors"]

#: What a bad ID or a publication that got nothing because of transient failures does: "skip" (a warning; the
#: publication is yielded as it is) or "raise".
Errors = Literal["skip", "raise"]
ERRORS: tuple[Errors, ...] = get_args(Errors)


def checked_errors(value: object) -> Errors:
    """``value`` when it is one of :data:`ERRORS`; otherwise the one ValueError every caller gets."""
    for allowed in ERRORS:
        if value == allowed:
            return allowed
    raise ValueError(f"errors must be {' or '.join(repr(e) for e in ERRORS)}, not {value!r}")


@dataclass(frozen=True, kw_only=True)
class FetchOptions:
    """The per-call options of :func:`pubfetch.fetcher.fetch_many` (documented there), checked when made.

    ``deferred`` and ``edges`` are lists the call fills in; the object itself never changes."""

    progress: Callable[[int, Publication], None] | None = None
    summary: BatchSummary | None = None
    retry_exceptions: bool = True
    use_stored: bool = True
    errors: Errors = "skip"
    deferred: list[RetryEntry] | None = None
    edges: list[CitationEdge] | None = None

    def __post_init__(self) -> None:
        checked_errors(self.errors)


def call_config(config: FetchConfig | None, args: FetcherArgs | None, parts: Iterable[PartName | str] | None,
                options: Mapping[str, object], caller: str) -> FetchConfig:
    """The run's configuration: ``config`` (default: from the environment and the config file), then the call's
    ``args``, ``parts`` and keyword options (settings by name; ``None`` leaves one as it is)."""
    changes = dict(options)
    if args is not None:
        changes["fetching"] = args
    if parts is not None:
        changes["parts"] = frozenset(p if isinstance(p, PartName) else PartName.parse(p) for p in parts)
    return (config or FetchConfig.from_env()).with_options(changes, caller, none_keeps=True)
