"""URL helpers the client needs: slot keys, the Referer origin, scheme checks, Location resolution."""

from __future__ import annotations

import logging
import re
from typing import Final
from urllib.parse import urljoin, urlsplit, urlunsplit

HTTP_SCHEMES: Final = frozenset({"http", "https"})
#: Parameters whose values are credentials (NCBI's ``api_key``), in a URL, a form body or a log message.
_SECRET_PARAM: Final = re.compile(r"(?i)(^|[?&;\s])(api_key=)[^&#;\s]*")


def redact(text: str) -> str:
    """The text (a URL, a form body, a log message) with the value of every secret parameter replaced by REDACTED."""
    return _SECRET_PARAM.sub(r"\1\2REDACTED", text)


class RedactingFilter(logging.Filter):
    """A logger filter that keeps credentials out of log records (URLs of E-utilities requests carry ``api_key``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


def hostname(url: str) -> str | None:
    """Host of the URL, lower-cased, without port or trailing dot; ``None`` if there is none or the URL is malformed."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    if not host:
        return None
    return host.rstrip(".").lower() or None


def host_key(url_or_host: str) -> str:
    """The per-host slot key, as PubFetcher compares hosts: lower-cased, port ignored, leading "www." dropped.

    Accepts a URL or a bare host name. A string without a host is its own key (PubFetcher falls back the same way).
    """
    text = url_or_host.strip()
    host = hostname(text if "//" in text else "//" + text)
    if not host:
        return url_or_host
    return host.removeprefix("www.")


def scheme(url: str) -> str:
    """Lower-cased scheme (``""`` if none)."""
    try:
        return urlsplit(url.strip()).scheme.lower()
    except ValueError:
        return ""


def origin(url: str) -> str:
    """PubFetcher's Referer: ``protocol://authority`` of the URL (port kept, user info dropped, no path)."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return f"{parts.scheme}://{netloc}"


def without_fragment(url: str) -> str:
    """The URL as sent on the wire (fragments are never sent); used to compare redirect hops."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, ""))


def resolve_location(base: str, location: str) -> str:
    """Absolute URL of a Location header relative to the URL that sent it (RFC 9110 allows relative references)."""
    return urljoin(base, location.strip())


def header_text(value: str) -> str:
    """A header value as the server meant it: http.client decodes header bytes as Latin-1, but servers send non-ASCII
    URLs in Location as UTF-8 (requests undoes this the same way); values that are not UTF-8 stay as they are."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return value
