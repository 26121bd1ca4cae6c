"""Naming the proxy a request went through and what set it (pubfetch/net/proxies.py), for the line that says a
proxy did not answer."""

from __future__ import annotations

import pytest

from pubfetch.config.proxies import EnvironmentProxies
from pubfetch.net.config import HttpConfig
from pubfetch.net.proxies import PROXIES_SETTING, NamedProxy, named_proxy
from pubfetch.net.requests_transport import EnvironmentSettings


@pytest.fixture
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    return monkeypatch


@pytest.mark.parametrize(("variables", "url", "named"), [
    ({"HTTPS_PROXY": "http://proxy.test:3128"}, "https://www.ebi.ac.uk/x", ("http://proxy.test:3128", "HTTPS_PROXY")),
    ({"https_proxy": "http://low.test:1", "HTTPS_PROXY": "http://up.test:2"}, "https://a.test/",
     ("http://low.test:1", "https_proxy")),
    ({"ALL_PROXY": "http://all.test:8080"}, "http://a.test/", ("http://all.test:8080", "ALL_PROXY")),
    ({"HTTP_PROXY": "http://p.test:1", "ALL_PROXY": "http://all.test:2"}, "http://a.test/",
     ("http://p.test:1", "HTTP_PROXY")),
    ({"HTTPS_PROXY": "http://user:secret@proxy.test:3128"}, "https://a.test/", ("http://proxy.test:3128",
                                                                                "HTTPS_PROXY")),
])
def test_the_proxy_of_the_environment_is_named_with_its_variable(
        variables: dict[str, str], url: str, named: tuple[str, str], no_proxies: pytest.MonkeyPatch) -> None:
    for name, value in variables.items():
        no_proxies.setenv(name, value)
    assert EnvironmentSettings(HttpConfig()).named_proxy(url) == NamedProxy(*named)


def test_no_proxy_and_no_variable_name_none(no_proxies: pytest.MonkeyPatch) -> None:
    assert EnvironmentSettings(HttpConfig()).named_proxy("https://a.test/") is None
    no_proxies.setenv("HTTPS_PROXY", "http://proxy.test:3128")
    no_proxies.setenv("NO_PROXY", "a.test")
    assert EnvironmentSettings(HttpConfig()).named_proxy("https://a.test/") is None


def test_a_configured_proxy_is_named_as_the_setting(no_proxies: pytest.MonkeyPatch) -> None:
    no_proxies.setenv("HTTPS_PROXY", "http://env.test:1")
    settings = EnvironmentSettings(HttpConfig(proxies={"https": "http://configured.test:2"}))
    assert settings.named_proxy("https://a.test/") == NamedProxy("http://configured.test:2", PROXIES_SETTING)
    assert str(settings.named_proxy("https://a.test/")) == "the proxy http://configured.test:2 (the proxies setting)"
    assert named_proxy("http://a.test/", {}, {}, EnvironmentProxies()) is None
