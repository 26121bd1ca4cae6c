"""URL helpers of the client (pubfetch/net/urls.py): credentials kept out of URLs, form bodies and log lines; the
host a slot is kept for; URLs that parsers read as different hosts refused; Referer origins and Location headers."""

from __future__ import annotations

import logging

import pytest

from pubfetch.net import urls
from pubfetch.net.urls import shown_url


def test_the_api_key_is_taken_out_of_urls_forms_and_messages() -> None:
    assert urls.without_secret_params("https://e.example/efetch?db=pubmed&api_key=s3cret&id=1") == (
        "https://e.example/efetch?db=pubmed&id=1")
    assert urls.without_secret_params("https://e.example/x?id=1") == "https://e.example/x?id=1"
    assert urls.form_without_secrets({"id": "1", "API_KEY": "s3cret"}) == {"id": "1"}
    assert urls.form_without_secrets(b"id=1&api_key=s3cret") == b"id=1"
    assert urls.form_without_secrets("id=1") == "id=1"
    assert urls.redact("GET https://e.example/x?api_key=s3cret&id=1 failed") == (
        "GET https://e.example/x?api_key=REDACTED&id=1 failed")


def test_the_redacting_filter_rewrites_a_log_record_that_carries_a_key() -> None:
    record = logging.LogRecord("t", logging.WARNING, __file__, 1, "asked %s", ("https://e.example/?api_key=k1",), None)
    assert urls.RedactingFilter().filter(record)
    assert record.getMessage() == "asked https://e.example/?api_key=REDACTED"


@pytest.mark.parametrize(("given", "key"), [
    ("https://www.Example.org:8443/path", "example.org"), ("example.org", "example.org"),
    ("http://sub.example.org./x", "sub.example.org"), ("not a url", "not a url")])
def test_slots_are_kept_per_host_as_pubfetcher_compares_hosts(given: str, key: str) -> None:
    assert urls.host_key(given) == key


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:9\\@publisher.example/", "http://pub lisher.example/", "http://publisher.example\x00/"])
def test_a_url_parsers_read_as_different_hosts_is_refused(url: str) -> None:
    assert urls.ambiguity(url) is not None


def test_an_ordinary_url_is_not_ambiguous() -> None:
    assert urls.ambiguity("https://user@publisher.example:8080/a?b=c#d") is None


def test_origins_fragments_locations_and_header_text() -> None:
    assert urls.origin("https://user:pw@journal.example:8443/a/b?c") == "https://journal.example:8443"
    assert urls.without_fragment("https://j.example/a?b#frag") == "https://j.example/a?b"
    assert urls.resolve_location("https://j.example/a/b", " ../c ") == "https://j.example/c"
    assert urls.header_text("/caf\u00c3\u00a9") == "/caf\u00e9"  # UTF-8 sent, read as Latin-1
    assert urls.header_text("/caf\u00e9") == "/caf\u00e9"  # not UTF-8: as it is
    assert urls.scheme(" HTTPS://x") == "https" and urls.hostname("https://[::1]:80/") == "::1"


def test_urls_are_shown_without_user_and_password() -> None:
    assert shown_url("amqp://user:pw@host:5672//") == "amqp://host:5672//"
    assert shown_url("redis://127.0.0.1:6379/1") == "redis://127.0.0.1:6379/1"


@pytest.mark.parametrize("url", [
    "redis://127.0.0.1:6379/1?prefix=team:", "redis://alice@127.0.0.1:6379/1?prefix=team:",
    "redis://:s3cret@127.0.0.1:6379/1?prefix=team:", "redis://alice:s3cret@127.0.0.1:6379/1?prefix=team:",
    "redis://:s3/cr@t@127.0.0.1:6379/1?prefix=team:",
])  # fmt: skip
def test_a_queue_is_shown_in_one_form_whoever_connects_to_it(url: str) -> None:
    assert shown_url(url) == "redis://127.0.0.1:6379/1?prefix=team:"


def test_a_password_in_the_query_is_hidden() -> None:
    assert shown_url("rediss://h:6380/0?password=s3cret&ssl_cert_reqs=none") == \
        "rediss://h:6380/0?password=***&ssl_cert_reqs=none"
    assert shown_url("redis://h/0?prefix=a:&Password=s3cret") == "redis://h/0?prefix=a:&Password=***"
