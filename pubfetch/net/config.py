"""HTTP client settings in one immutable record.

The defaults reproduce PubFetcher's fetching parameters (``timeout``, ``userAgent``, ``quick``) and add the limits a
batch fetcher needs so that one hostile or broken server cannot hold a worker or the memory of the process hostage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypedDict

if TYPE_CHECKING:
    from pubfetch.net.record import ExchangeRecord

__all__ = ["HttpConfig", "HttpOverrides", "RateLimiter", "ResponseHook"]


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

DEFAULT_USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0"
DEFAULT_TIMEOUT_MS = 15000
DEFAULT_MAX_BYTES = 50 * 1024 * 1024

#: Hosts PubFetcher never queues behind (the DOI resolver answers every thread at once and only redirects).
DEFAULT_UNLIMITED_HOSTS: frozenset[str] = frozenset({"doi.org", "dx.doi.org"})


@dataclass(frozen=True)
class HttpConfig:
    """Settings of :class:`pubfetch.net.client.HttpClient`.

    Attributes:
        timeout_ms: connect timeout and read timeout (per socket operation), PubFetcher's ``timeout``.
        user_agent: the User-Agent header, PubFetcher's ``userAgent``.
        quick: PubFetcher's ``quick``: a timeout is not retried.
        max_bytes: cap on the decoded body; bigger responses become ``TOO_LARGE`` (checked while streaming).
        max_compression_ratio: decoded/raw size ratio above which a compressed body is treated as a decompression bomb,
            checked once more than ``compression_ratio_floor`` bytes were decoded (small bodies can compress very well).
        compression_ratio_floor: see ``max_compression_ratio``.
        total_timeout_ms: wall-clock cap on one request/response exchange (connect, headers and body), so that a server
            dripping one byte per read timeout cannot hold a thread forever; ``None`` means 8 x ``timeout_ms``
            (2 minutes by default, PubFetcher's cap on a JavaScript fetch).
        max_redirects: redirects followed before ``TOO_MANY_REDIRECTS``.
        per_host_connections: concurrent connections to one host (PubFetcher 1.1.1: 1; its develop branch: 4).
        host_connections: per-host overrides of ``per_host_connections``, keyed by normalised host (see
            :func:`pubfetch.net.urls.host_key`), e.g. ``{"ebi.ac.uk": 4}``.
        unlimited_hosts: normalised hosts that take no slot at all.
        timeout_retries: extra attempts after a timeout (PubFetcher: 1; ignored when ``quick``).
        busy_retries: extra attempts after a 503 or 429 before the outcome is ``SERVER_BUSY``.
        retry_after_cap_s: longest Retry-After honoured; a server asking for a longer wait is not retried now but
            recorded as busy (fetchException), so the next run retries it instead of a worker sleeping for an hour.
        busy_backoff_s: wait before retrying a 503/429 that has no Retry-After (doubles on each retry).
        allow_private_addresses: allow URLs resolving to loopback, private, link-local, reserved and cloud-metadata
            addresses even when they come from untrusted sources (pages, redirects); tests and intranet users set it.
        proxies: explicit proxies (requests format), in addition to the standard environment variables.
        ca_bundle: CA bundle path; ``None`` keeps requests' default (REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE / certifi).
        response_hook: called with an :class:`~pubfetch.net.record.ExchangeRecord` for every HTTP response received
            (redirects and retried responses too), e.g. by a WARC writer. Exceptions it raises are logged and ignored.
        extra_headers: headers sent with every request (after the defaults, before per-call headers).
        rate_limiter: a :class:`~pubfetch.net.ratelimit.SharedRateLimiter` every request waits on (shared by all
            threads and processes using the same file); ``None``: no rate limiting beyond the per-host slots.
        rate_key: maps a URL to the limiter's service key (e.g. a
            :class:`~pubfetch.net.ratelimit.ServiceMap`); default: ``host:<normalised host>``.
    """

    timeout_ms: int = DEFAULT_TIMEOUT_MS
    user_agent: str = DEFAULT_USER_AGENT
    quick: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    max_compression_ratio: float = 100.0
    compression_ratio_floor: int = 1024 * 1024
    total_timeout_ms: int | None = None
    max_redirects: int = 10
    per_host_connections: int = 1
    host_connections: Mapping[str, int] = field(default_factory=dict)
    unlimited_hosts: frozenset[str] = DEFAULT_UNLIMITED_HOSTS
    timeout_retries: int = 1
    busy_retries: int = 2
    retry_after_cap_s: float = 60.0
    busy_backoff_s: float = 1.0
    allow_private_addresses: bool = False
    proxies: Mapping[str, str] | None = None
    ca_bundle: str | None = None
    response_hook: ResponseHook | None = None
    extra_headers: Mapping[str, str] = field(default_factory=dict)
    rate_limiter: RateLimiter | None = None
    rate_key: Callable[[str], str] | None = None

    def __post_init__(self) -> None:
        if self.timeout_ms < 0:
            raise ValueError("timeout_ms must be >= 0")
        if self.max_bytes <= 0:
            raise ValueError("max_bytes must be > 0")
        if self.max_redirects < 0:
            raise ValueError("max_redirects must be >= 0")
        if self.per_host_connections < 1 or any(n < 1 for n in self.host_connections.values()):
            raise ValueError("per-host connections must be >= 1")
        if self.timeout_retries < 0 or self.busy_retries < 0:
            raise ValueError("retry counts must be >= 0")
        if self.retry_after_cap_s < 0 or self.busy_backoff_s < 0:
            raise ValueError("waits must be >= 0")

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

    @property
    def effective_timeout_retries(self) -> int:
        """Timeout retries actually made: none in quick mode."""
        return 0 if self.quick else self.timeout_retries


class HttpOverrides(TypedDict, total=False):
    """Some :class:`HttpConfig` settings, typed: the ones given override what a
    :class:`~pubfetch.config.FetchConfig` derives (timeout, user agent, quick mode from PubFetcher's parameters)."""

    timeout_ms: int
    user_agent: str
    quick: bool
    max_bytes: int
    max_compression_ratio: float
    compression_ratio_floor: int
    total_timeout_ms: int | None
    max_redirects: int
    per_host_connections: int
    host_connections: Mapping[str, int]
    unlimited_hosts: frozenset[str]
    timeout_retries: int
    busy_retries: int
    retry_after_cap_s: float
    busy_backoff_s: float
    allow_private_addresses: bool
    proxies: Mapping[str, str] | None
    ca_bundle: str | None
    response_hook: ResponseHook | None
    extra_headers: Mapping[str, str]
    rate_limiter: RateLimiter | None
    rate_key: Callable[[str], str] | None
