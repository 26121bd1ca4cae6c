"""HTTP client settings in one immutable record: the ``http`` record of the settings tree with the three of
PubFetcher's fetching parameters the client obeys (``timeout``, ``userAgent``, ``quick``), declared once in
:class:`~pubfetch.config.defaults.FetcherArgs` and taken from there, name, unit, bounds and doc.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pubfetch.config.defaults import DEFAULT_MAX_BYTES, DEFAULT_UNLIMITED_HOSTS, FetcherArgs, HttpSettings
from pubfetch.config.environment import environment_proxies
from pubfetch.config.proxies import EnvironmentProxies

if TYPE_CHECKING:
    from pubfetch.config import FetchConfig
    from pubfetch.net.record import ExchangeRecord

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_UNLIMITED_HOSTS", "HttpConfig", "RateLimiter", "ResponseHook", "http_config"]


class RateLimiter(Protocol):
    """What the client needs of a rate limiter shared by threads and processes (one per service key): the SQLite
    :class:`~pubfetch.net.ratelimit.SharedRateLimiter` on one machine, a Redis one across machines."""

    def acquire(self, key: str) -> float:
        """Wait until a request to ``key`` may go; return the seconds waited."""
        ...

    def penalize(self, key: str, seconds: float) -> None:
        """Hold every request to ``key`` back for ``seconds`` (the service asked for it with Retry-After)."""
        ...


class ResponseHook(Protocol):
    """Called with every HTTP response received (redirects and retried responses too), e.g. a WARC recorder."""

    def __call__(self, exchange: ExchangeRecord) -> None: ...


def _fetching_field(name: str) -> Any:
    """The declaration of one of PubFetcher's parameters, shared: the same default, bounds, name and doc."""
    shared = next(f for f in dataclasses.fields(FetcherArgs) if f.name == name)
    return dataclasses.field(default=shared.default, metadata=shared.metadata)


@dataclass(frozen=True)
class HttpConfig(HttpSettings):
    """Settings of :class:`pubfetch.net.client.HttpClient`: the HTTP settings of a configuration
    (:class:`~pubfetch.config.defaults.HttpSettings`, where each is declared) with PubFetcher's ``timeout``,
    ``userAgent`` and ``quick`` (:func:`http_config` takes them from a :class:`~pubfetch.config.FetchConfig`).

    What has state is given to the client beside its settings: the response hook (a WARC recorder), the rate
    limiter and the transport.
    """

    timeout: int = _fetching_field("timeout")
    user_agent: str = _fetching_field("user_agent")
    quick: bool = _fetching_field("quick")

    @property
    def timeout_s(self) -> float | None:
        """``timeout`` (milliseconds, the one unit of the setting) as the seconds socket libraries take; ``None`` for
        PubFetcher's 0, "no timeout", as in java.net."""
        return self.timeout / 1000 if self.timeout > 0 else None

    @property
    def total_timeout_s(self) -> float | None:
        """Exchange deadline in seconds (``None``: none)."""
        if self.total_timeout_ms is not None:
            return self.total_timeout_ms / 1000 if self.total_timeout_ms > 0 else None
        return 8 * self.timeout / 1000 if self.timeout > 0 else None

    def proxies_of_environment(self) -> EnvironmentProxies:
        """The environment's proxies as the configuration read them, else as the process's variables name them now
        (a configuration built in code)."""
        return self.environment_proxies if self.environment_proxies is not None else environment_proxies()

    @property
    def effective_timeout_retries(self) -> int:
        """Timeout retries actually made: none in quick mode."""
        return 0 if self.quick else self.timeout_retries


def http_config(config: FetchConfig) -> HttpConfig:
    """The HTTP client settings of a fetch configuration: its ``http`` record with the fetching parameters'
    timeout, user agent and quick mode."""
    fetching = config.fetching
    values = {f.name: getattr(config.http, f.name) for f in dataclasses.fields(config.http)}
    return HttpConfig(timeout=fetching.timeout, user_agent=fetching.user_agent, quick=fetching.quick, **values)
