"""HTTP client settings in one immutable record.

The defaults reproduce PubFetcher's fetching parameters (``timeout``, ``userAgent``, ``quick``) and add the limits a
batch fetcher needs so that one hostile or broken server cannot hold a worker or the memory of the process hostage.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol

from pubfetch.config.defaults import DEFAULT_MAX_BYTES, DEFAULT_UNLIMITED_HOSTS, FetcherArgs, HttpSettings
from pubfetch.config.environment import environment_proxies
from pubfetch.config.proxies import EnvironmentProxies
from pubfetch.config.values import setting

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

DEFAULT_USER_AGENT: Final[str] = FetcherArgs().user_agent
DEFAULT_TIMEOUT_MS: Final[int] = FetcherArgs().timeout


@dataclass(frozen=True)
class HttpConfig(HttpSettings):
    """Settings of :class:`pubfetch.net.client.HttpClient`: the HTTP settings of a configuration
    (:class:`~pubfetch.config.defaults.HttpSettings`, where each is declared) with PubFetcher's ``timeout``,
    ``userAgent`` and ``quick`` (:func:`http_config` takes them from a :class:`~pubfetch.config.FetchConfig`).

    What has state is given to the client beside its settings: the response hook (a WARC recorder), the rate
    limiter and the transport.
    """

    timeout_ms: int = setting(DEFAULT_TIMEOUT_MS, doc="connect and read timeout (PubFetcher's timeout); 0: none")
    user_agent: str = setting(DEFAULT_USER_AGENT, doc="the User-Agent header (PubFetcher's userAgent)")
    quick: bool = setting(False, doc="PubFetcher's quick: a timeout is not retried")

    @property
    def timeout_s(self) -> float | None:
        """Socket timeout in seconds; PubFetcher's timeout 0 means "no timeout", as in java.net."""
        return self.timeout_ms / 1000 if self.timeout_ms > 0 else None

    @property
    def total_timeout_s(self) -> float | None:
        """Exchange deadline in seconds (``None``: none)."""
        if self.total_timeout_ms is not None:
            return self.total_timeout_ms / 1000 if self.total_timeout_ms > 0 else None
        return 8 * self.timeout_ms / 1000 if self.timeout_ms > 0 else None

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
    return HttpConfig(timeout_ms=fetching.timeout, user_agent=fetching.user_agent, quick=fetching.quick, **values)
