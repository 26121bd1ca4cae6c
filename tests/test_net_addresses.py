"""The SSRF guard: untrusted URLs (from pages, redirects, third-party APIs) must not reach inside the network."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator

import pytest

from pubfetch.net import addresses
from pubfetch.net.outcome import OutcomeKind
from support.loopback import Reply
from support.netsupport import FastServer as LoopbackServer
from support.netsupport import both, make_client


@pytest.fixture(autouse=True)
def fresh_resolver_cache() -> Iterator[None]:
    addresses.clear_cache()
    yield
    addresses.clear_cache()


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("127.0.0.1", "loopback address"),
        ("127.8.9.10", "loopback address"),
        ("::1", "loopback address"),
        ("[::1]", "loopback address"),
        ("localhost", "loopback address"),
        ("LOCALHOST.", "loopback address"),
        ("api.localhost", "loopback address"),
        ("10.1.2.3", "private address"),
        ("172.16.0.1", "private address"),
        ("192.168.1.1", "private address"),
        ("fd12:3456::1", "private address"),
        ("169.254.169.254", "cloud metadata address"),
        ("169.254.170.2", "cloud metadata address"),
        ("100.100.100.200", "cloud metadata address"),
        ("fd00:ec2::254", "cloud metadata address"),
        ("metadata.google.internal", "cloud metadata host name"),
        ("169.254.1.1", "link-local address"),
        ("fe80::1", "link-local address"),
        ("[fe80::1%eth0]", "link-local address"),
        ("100.64.0.1", "shared (carrier-grade NAT) address"),
        ("0.0.0.0", "unspecified address"),
        ("224.0.0.1", "multicast address"),
        ("240.0.0.1", "private address"),  # reserved, and Python counts it as private too
        ("::ffff:127.0.0.1", "loopback address"),  # IPv4-mapped
        ("::ffff:a9fe:a9fe", "cloud metadata address"),  # 169.254.169.254 mapped
        ("2002:7f00:1::", "loopback address"),  # 6to4 of 127.0.0.1
    ],
)
def test_forbidden_hosts(host: str, reason: str) -> None:
    assert addresses.forbidden_host_reason(host) == reason


@pytest.mark.parametrize("host", ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8", ""])
def test_public_addresses_are_allowed(host: str) -> None:
    assert addresses.forbidden_host_reason(host) is None


def test_forbidden_ip_reason_on_addresses() -> None:
    assert addresses.forbidden_ip_reason(ipaddress.ip_address("10.0.0.1")) == "private address"
    assert addresses.forbidden_ip_reason(ipaddress.ip_address("1.1.1.1")) is None


def _fake_resolver(monkeypatch: pytest.MonkeyPatch, table: dict[str, list[str]]) -> None:
    def getaddrinfo(host: str, *args: object, **kwargs: object) -> list[tuple]:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, 0)) for ip in table[host]]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_names_are_judged_by_what_they_resolve_to(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_resolver(monkeypatch, {"intranet.example": ["10.0.0.5"], "mixed.example": ["93.184.216.34", "127.0.0.1"],
                                 "public.example": ["93.184.216.34"]})
    assert addresses.forbidden_host_reason("intranet.example") == "private address (10.0.0.5)"
    assert addresses.forbidden_host_reason("mixed.example") == "loopback address (127.0.0.1)"  # one bad answer is enough
    assert addresses.forbidden_host_reason("public.example") is None
    assert addresses.forbidden_host_reason("unknown.example") is None  # may still work through a proxy


# ---------------------------------------------------------------------------------------------------- in the client


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:9/x", "http://localhost/", "http://10.0.0.1/admin", "http://192.168.0.1/", "http://172.20.1.1/",
     "http://169.254.169.254/latest/meta-data/iam/", "http://169.254.10.10/", "http://[::1]/", "http://[fe80::1]/",
     "http://0.0.0.0/", "http://metadata.google.internal/computeMetadata/v1/", "http://100.64.1.1/"],
)
def test_untrusted_urls_to_inner_addresses_are_refused(url: str) -> None:
    client = make_client(allow_private_addresses=False)
    results = both(client, url, untrusted=True) + (client.post(url, {"a": "1"}, untrusted=True),
                                                    client.resolve_redirect(url, untrusted=True))
    for r in results:
        assert (r.kind, r.status, r.attempts, r.fetch_exception) == (OutcomeKind.FORBIDDEN_ADDRESS, None, 0, False)
        assert r.message.endswith("address") or r.message.endswith("host name")


def test_untrusted_loopback_refused_without_touching_the_server() -> None:
    with LoopbackServer({"/x": Reply(200, "secret")}) as server:
        r = make_client(allow_private_addresses=False).get(server.url("/x"), untrusted=True)
        assert server.count() == 0
    assert (r.kind, r.body, r.message) == (OutcomeKind.FORBIDDEN_ADDRESS, b"", "127.0.0.1 is a loopback address")


def test_untrusted_loopback_allowed_with_allow_private_addresses() -> None:
    with LoopbackServer({"/x": Reply(200, "intranet page", "text/plain")}) as server:
        r = make_client(allow_private_addresses=True).get(server.url("/x"), untrusted=True)
        assert server.count("/x") == 1
    assert (r.kind, r.text) == (OutcomeKind.OK, "intranet page")


def test_trusted_url_to_loopback_is_fetched() -> None:
    """Configured endpoints (a local mirror) are trusted: only where they redirect to is checked."""
    with LoopbackServer({"/x": Reply(200, "mirror", "text/plain")}) as server:
        r = make_client(allow_private_addresses=False).get(server.url("/x"))
    assert (r.kind, r.text) == (OutcomeKind.OK, "mirror")


@pytest.mark.parametrize("target", ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://[::1]/x",
                                    "http://localhost:{port}/secret", "http://LOCALHOST:{port}/secret"])
def test_trusted_url_redirecting_to_a_private_host_is_refused(target: str) -> None:
    routes = {"/doi/10.1/x": Reply(302, "", headers={"Location": target}), "/secret": Reply(200, "secret")}
    with LoopbackServer(routes) as server:
        location = target.format(port=server.base.rsplit(":", 1)[1])
        server.route("/doi/10.1/x", Reply(302, "", headers={"Location": location}))
        client = make_client(allow_private_addresses=False)
        r = client.get(server.url("/doi/10.1/x"), publication=True)
        resolved = client.resolve_redirect(server.url("/doi/10.1/x"))
        assert server.count("/secret") == 0
    assert (r.kind, r.status, r.final_url, r.redirects, r.fetch_exception) == (
        OutcomeKind.FORBIDDEN_ADDRESS, None, location, (server.url("/doi/10.1/x"),), False)
    # resolve_redirect does not follow, so it only reports where the DOI points; the caller's GET will be checked
    assert (resolved.kind, resolved.location) == (OutcomeKind.OK, location)


def test_trusted_url_redirecting_within_its_own_host_is_followed() -> None:
    routes = {"/a": Reply(302, "", headers={"Location": "/b"}), "/b": Reply(200, "b", "text/plain")}
    with LoopbackServer(routes) as server:
        r = make_client(allow_private_addresses=False).get(server.url("/a"))
    assert (r.kind, r.text) == (OutcomeKind.OK, "b")


def test_untrusted_redirect_within_a_private_host_is_refused_at_the_first_url() -> None:
    routes = {"/a": Reply(302, "", headers={"Location": "/b"})}
    with LoopbackServer(routes) as server:
        r = make_client(allow_private_addresses=False).get(server.url("/a"), untrusted=True)
        assert server.count() == 0
    assert r.kind is OutcomeKind.FORBIDDEN_ADDRESS


def test_untrusted_name_resolving_to_private_address_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_resolver(monkeypatch, {"wiki.corp.example": ["192.168.10.20"]})
    r = make_client(allow_private_addresses=False).get("http://wiki.corp.example/page", untrusted=True)
    assert (r.kind, r.message) == (OutcomeKind.FORBIDDEN_ADDRESS,
                                   "wiki.corp.example is a private address (192.168.10.20)")
