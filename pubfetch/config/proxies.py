"""The proxies the environment names (``http_proxy``, ``HTTPS_PROXY``, ``all_proxy``, ``no_proxy`` ...), read once
into the configuration (:meth:`~pubfetch.config.tree.FetchConfig.from_env`), so that the HTTP client, the FTP
download, the browser's guard proxy and the message naming a proxy that does not answer all go by one reading, and
none of them reads the process environment where it is used.
"""

from __future__ import annotations

import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

__all__ = ["EnvironmentProxies"]

_SUFFIX = "_proxy"


@dataclass(frozen=True)
class EnvironmentProxies:
    """Proxies by scheme (``all`` for every scheme) as urllib and requests read them from the environment, the
    variable that named each (to tell the user what to fix), and the hosts ``no_proxy`` exempts."""

    proxies: Mapping[str, str] = field(default_factory=dict)
    variables: Mapping[str, str] = field(default_factory=dict)
    no_proxy: str = ""

    @classmethod
    def read(cls, env: Mapping[str, str], *, platform: bool = False) -> EnvironmentProxies:
        """The proxies the variables of ``env`` name, with those the platform configures when ``platform`` (the
        process's: :func:`urllib.request.getproxies`). A lower-case variable wins over its upper-case twin, and
        ``HTTP_PROXY`` is ignored under CGI (``REQUEST_METHOD`` set), as in urllib."""
        found: dict[str, str] = {}
        variables: dict[str, str] = {}
        for lower_only in (False, True):
            for name, value in env.items():
                if value and name.lower().endswith(_SUFFIX) and (not lower_only or name.islower()):
                    scheme = name.lower()[: -len(_SUFFIX)]
                    found[scheme], variables[scheme] = value, name
        if "REQUEST_METHOD" in env and variables.get("http") == "HTTP_PROXY":
            del found["http"], variables["http"]
        if platform:
            for scheme, value in urllib.request.getproxies().items():
                found.setdefault(scheme, value)
        no_proxy = found.pop("no", "")
        variables.pop("no", None)
        return cls(found, variables, no_proxy)

    def bypassed(self, host: str) -> bool:
        """Whether ``no_proxy`` exempts ``host`` (``*``, a domain suffix, a host with or without its port)."""
        bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]  # not in typeshed
        return bool(self.no_proxy) and bool(bypass(host, {"no": self.no_proxy}))

    def upstream(self, url: str) -> str | None:
        """The proxy a connection to ``url`` goes through (``None``: directly)."""
        parts = urlsplit(url)
        if self.bypassed(parts.hostname or ""):
            return None
        return self.proxies.get(parts.scheme) or self.proxies.get("all")

    def variable(self, url: str, proxy: str) -> str:
        """The variable that names ``proxy`` for ``url`` (its scheme's before ``all_proxy``), else "the
        environment"."""
        scheme = urlsplit(url).scheme.lower()
        for key in (scheme, "all"):
            if self.proxies.get(key) == proxy and key in self.variables:
                return self.variables[key]
        return "the environment"
