"""Which proxy a request went through, and what set it (an environment variable, or the ``proxies`` setting): a proxy
that does not answer is named with its source in the failure's line and in the "network unreachable" error, so the
user knows what to fix (the proxy, or the variable or setting) instead of suspecting the services."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple
from urllib.parse import urlsplit, urlunsplit

import requests.utils

from pubfetch.config.proxies import EnvironmentProxies

__all__ = ["PROXIES_SETTING", "PROXY_FAILURE", "NamedProxy", "named_proxy"]

#: How the message of a failure at a proxy starts (:func:`pubfetch.net.errors.classify_exception`), followed by
#: the proxy named (:class:`NamedProxy`) and "; ".
PROXY_FAILURE = "proxy: "
#: The source of a proxy given in the configuration.
PROXIES_SETTING = "the proxies setting"


class NamedProxy(NamedTuple):
    """A proxy (its URL without user name or password) and what set it."""

    url: str
    source: str

    def __str__(self) -> str:
        return f"the proxy {self.url} ({self.source})"


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def named_proxy(url: str, proxies: Mapping[str, str], configured: Mapping[str, str],
                environment: EnvironmentProxies) -> NamedProxy | None:
    """The proxy of ``proxies`` (what a request to ``url`` was sent with) that requests chose for ``url``, named
    with its source: ``configured`` (the ``proxies`` setting) or the variable of ``environment`` that named it;
    None without one."""
    proxy = requests.utils.select_proxy(url, dict(proxies))
    if not proxy:
        return None
    configured_one = requests.utils.select_proxy(url, dict(configured)) if configured else None
    source = PROXIES_SETTING if proxy == configured_one else environment.variable(url, proxy)
    return NamedProxy(_without_credentials(proxy), source)
