"""The environment's proxies, read once into the configuration: which variable names which proxy, what ``no_proxy``
exempts, and that a client goes by the configuration's reading rather than by the process's variables."""

from __future__ import annotations

import pytest

from pubfetch.config import FetchConfig
from pubfetch.config.proxies import EnvironmentProxies
from pubfetch.net.config import http_config
from pubfetch.net.requests_transport import EnvironmentSettings


def test_a_lower_case_variable_wins_and_each_proxy_keeps_the_variable_that_named_it() -> None:
    read = EnvironmentProxies.read({"HTTPS_PROXY": "http://upper.test:1", "https_proxy": "http://lower.test:2",
                                    "ALL_PROXY": "socks5://all.test:3", "NO_PROXY": "intranet.test", "PATH": "/bin"})
    assert read.proxies == {"https": "http://lower.test:2", "all": "socks5://all.test:3"}
    assert read.variable("https://a.test/", "http://lower.test:2") == "https_proxy"
    assert read.variable("ftp://a.test/", "socks5://all.test:3") == "ALL_PROXY"
    assert read.variable("https://a.test/", "http://elsewhere.test:9") == "the environment"
    assert (read.upstream("https://a.test/x"), read.upstream("https://www.intranet.test/x")) == (
        "http://lower.test:2", None)
    assert read.upstream("http://a.test/x") == "socks5://all.test:3"


def test_http_proxy_is_ignored_under_cgi_as_urllib_ignores_it() -> None:
    assert EnvironmentProxies.read({"HTTP_PROXY": "http://p.test:1", "REQUEST_METHOD": "GET"}).proxies == {}


def test_from_env_reads_the_proxies_into_the_tree_and_the_client_goes_by_that_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The process's variables changed after the configuration was read change nothing: one reading."""
    config = FetchConfig.from_env({"https_proxy": "http://read.test:3128", "no_proxy": "local.test"},
                                  config_file="")
    monkeypatch.setenv("https_proxy", "http://later.test:1")
    monkeypatch.delenv("no_proxy", raising=False)
    settings = EnvironmentSettings(http_config(config))
    assert settings.proxies("https://journal.test/a") == {"https": "http://read.test:3128"}
    assert settings.proxies("https://local.test/a") == {}
    assert str(settings.named_proxy("https://journal.test/a")) == "the proxy http://read.test:3128 (https_proxy)"
