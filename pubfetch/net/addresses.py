"""Refusing URLs that point inside the machine or the network (SSRF guard).

pubfetch follows links and redirects taken from arbitrary web pages. Without a guard, a page (or a DOI registered by
anyone) could make a batch run on a cloud VM fetch ``http://169.254.169.254/`` (instance credentials) or an intranet
admin page, and store the answer in a database that is later shared. So URLs from untrusted sources are refused when
their host resolves to a loopback, private, link-local, shared (CGNAT), reserved, multicast or unspecified address, or
to a cloud metadata service.

A host that does not resolve is NOT forbidden: the request then fails as DNS, or goes through a proxy that resolves it
(institutional networks often have no public DNS). The check resolves once and the request resolves again, so a DNS
rebinding server could still switch answers in between; closing that needs pinning the connection to the checked
address and is left for when it matters.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import socket
from typing import Final

logger = logging.getLogger(__name__)

#: Cloud metadata endpoints (also covered by the link-local/private checks; listed so the reason is explicit).
METADATA_ADDRESSES: Final = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),  # AWS, GCP, Azure, OpenStack, ...
        ipaddress.ip_address("169.254.170.2"),  # AWS ECS task metadata
        ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
        ipaddress.ip_address("fd00:ec2::254"),  # AWS IPv6
    }
)
METADATA_HOSTNAMES: Final = frozenset({"metadata.google.internal", "metadata.goog", "metadata", "instance-data"})

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def forbidden_ip_reason(ip: IPAddress) -> str | None:
    """Why an address must not be fetched from an untrusted URL (``None`` if it may)."""
    if isinstance(ip, ipaddress.IPv6Address):
        mapped = ip.ipv4_mapped or ip.sixtofour
        if mapped is not None:
            return forbidden_ip_reason(mapped)
    if ip in METADATA_ADDRESSES:
        return "cloud metadata address"
    checks = (
        ("loopback address", ip.is_loopback),
        ("unspecified address", ip.is_unspecified),
        ("link-local address", ip.is_link_local),
        ("multicast address", ip.is_multicast),
        ("private address", ip.is_private),
        ("reserved address", ip.is_reserved),
        ("shared (carrier-grade NAT) address", isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED),
    )
    for reason, hit in checks:
        if hit:
            return reason
    return None


_SHARED: Final = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT, not is_private in every Python version


def parse_ip(host: str) -> IPAddress | None:
    """The address a host string spells literally (``[::1]`` and a zone suffix allowed), ``None`` if it is a name."""
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None



@functools.lru_cache(maxsize=4096)
def _resolve(host: str) -> tuple[IPAddress, ...]:
    """All addresses of a host name; empty if it does not resolve. Cached: a batch asks about the same hosts often."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError, OSError) as e:
        logger.debug("cannot resolve %s for the address check: %s", host, e)
        return ()
    found: list[IPAddress] = []
    for info in infos:
        ip = parse_ip(str(info[4][0]))
        if ip is not None and ip not in found:
            found.append(ip)
    return tuple(found)


def forbidden_name_reason(host: str) -> str | None:
    """Why a host must not be fetched, judged from its spelling alone: a forbidden literal address, a metadata name,
    ``localhost`` (no DNS lookup; ``None`` for any other name)."""
    host = host.strip().rstrip(".").lower()
    if not host:
        return None
    if host in METADATA_HOSTNAMES:
        return "cloud metadata host name"
    literal = parse_ip(host)
    if literal is not None:
        return forbidden_ip_reason(literal)
    if host == "localhost" or host.endswith(".localhost"):
        return "loopback address"
    return None


def forbidden_host_reason(host: str) -> str | None:
    """Why a host must not be fetched from an untrusted URL: a forbidden literal, a metadata name, or a name that
    resolves to any forbidden address (one bad answer among several is enough: the connection may pick it).
    ``None`` if allowed or unresolvable."""
    reason = forbidden_name_reason(host)
    if reason or parse_ip(host.strip().rstrip(".")) is not None:
        return reason
    host = host.strip().rstrip(".").lower()
    if not host:
        return None
    for ip in _resolve(host):
        reason = forbidden_ip_reason(ip)
        if reason:
            return f"{reason} ({ip})"
    return None


def clear_cache() -> None:
    """Forget resolved addresses (tests, long runs across network changes)."""
    _resolve.cache_clear()
