"""The HTTP client's settings (pubfetch/net/config.py): a configuration's ``http`` record with PubFetcher's timeout,
user agent and quick mode, its defaults PubFetcher's, its values checked as every setting's are, and the timeouts the
client derives from them."""

from __future__ import annotations

import dataclasses

import pytest

from pubfetch.config import FetchConfig
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.net.config import HttpConfig, http_config


def test_a_configuration_s_client_settings_are_its_http_record_and_pubfetcher_s_timeout_agent_and_quick() -> None:
    cfg = FetchConfig().with_changes(fetching=FetcherArgs(timeout=5000, quick=True, user_agent="agent/1"),
                                     busy_retries=0, max_redirects=3, host_connections={"ebi.ac.uk": 4})
    client = http_config(cfg)
    assert (client.timeout, client.user_agent, client.quick) == (5000, "agent/1", True)
    assert (client.busy_retries, client.max_redirects, client.host_connections) == (0, 3, {"ebi.ac.uk": 4})
    assert (client.timeout_s, client.total_timeout_s, client.effective_timeout_retries) == (5.0, 40.0, 0)


def test_the_timeout_agent_and_quick_are_pubfetcher_s_declarations_not_copies() -> None:
    """One name and one unit for the timeout (PubFetcher's, milliseconds): the client's fields are the fetching
    record's declarations, with their bounds and doc."""
    for name in ("timeout", "user_agent", "quick"):
        ours = next(f for f in dataclasses.fields(HttpConfig) if f.name == name)
        theirs = next(f for f in dataclasses.fields(FetcherArgs) if f.name == name)
        assert (ours.default, ours.metadata) == (theirs.default, theirs.metadata), name
    assert not any("timeout_ms" == f.name for f in dataclasses.fields(HttpConfig))


def test_config_defaults_are_pubfetchers() -> None:
    c = HttpConfig()
    assert (c.timeout, c.timeout_s, c.quick, c.effective_timeout_retries) == (15000, 15.0, False, 1)
    assert c.user_agent == "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0"
    assert c.per_host_connections == 1
    assert c.total_timeout_s == 120.0
    assert HttpConfig(quick=True).effective_timeout_retries == 0
    assert (HttpConfig(timeout=0).timeout_s, HttpConfig(timeout=0).total_timeout_s) == (None, None)
    assert HttpConfig(total_timeout_ms=2500).total_timeout_s == 2.5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"timeout": -1}, "timeout must be between 0 and"), ({"max_bytes": 0}, "max_bytes must be between 1 and"),
     ({"max_redirects": -1}, "max_redirects must be between 0 and 100"),
     ({"per_host_connections": 0}, "per_host_connections must be between 1 and 1024"),
     ({"host_connections": {"a.example": 0}}, "host_connections.a.example must be between 1 and 1024"),
     ({"busy_retries": -1}, "busy_retries must be between 0 and 100"),
     ({"busy_backoff_s": -1}, "busy_backoff_s must be between 0 and 3600")],
)
def test_config_validation(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        HttpConfig(**kwargs)
