"""URL helpers: slot keys, the Referer origin, scheme checks, Location resolution, and URLs and texts as they may be
shown (credentials hidden)."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Final
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

HTTP_SCHEMES: Final = frozenset({"http", "https"})
#: Parameters whose values are credentials (NCBI's ``api_key``), in a URL, a form body or a log message.
_SECRET_PARAM: Final = re.compile(r"(?i)(^|[?&;\s])(api_key=)[^&#;\s]*")


SECRET_PARAMS: Final = frozenset({"api_key"})


def without_secret_params(url: str) -> str:
    """The URL without the secret query parameters (``api_key``)."""
    parts = urlsplit(url)
    if not parts.query or "api_key" not in parts.query.lower():
        return url
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in SECRET_PARAMS]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(kept), parts.fragment))


FormData = Mapping[str, str] | bytes | str | None


def form_without_secrets(data: FormData) -> FormData:
    """Form data (a mapping, or urlencoded text or bytes) without the secret fields; other bodies as they are."""
    if isinstance(data, Mapping):
        return {k: v for k, v in data.items() if str(k).lower() not in SECRET_PARAMS}
    if isinstance(data, (str, bytes)):
        text = data.decode("latin-1") if isinstance(data, bytes) else data
        if "api_key" not in text.lower():
            return data
        kept = urlencode([(k, v) for k, v in parse_qsl(text, keep_blank_values=True)
                          if k.lower() not in SECRET_PARAMS])
        return kept.encode("latin-1") if isinstance(data, bytes) else kept
    return data


def redact(text: str) -> str:
    """The text (a URL, a form body, a log message) with the value of every secret parameter replaced by REDACTED."""
    return _SECRET_PARAM.sub(r"\1\2REDACTED", text)


_URL_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
#: Query parameters whose value is hidden: redis-py passes any query parameter (``?password=``) to the connection.
_PASSWORD_PARAMETER: Final = re.compile(r"(?i)([?&][^=&#]*(?:pass|pwd|secret|token)[^=&#]*=)[^&#]*")


def shown_url(url: str) -> str:
    """A queue or database URL as it may be printed: its scheme, host, port, path and query, without the user and
    password (everything up to the last ``@`` goes, so a password holding an unescaped ``/`` or ``@`` cannot show
    through) and with a password given as a query parameter hidden, so that one queue reads the same in every
    message."""
    scheme = _URL_SCHEME.match(url)
    start = scheme.end() if scheme else 0
    rest = url[start:].rsplit("@", maxsplit=1)[-1]
    return url[:start] + _PASSWORD_PARAMETER.sub(r"\1***", rest)


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


#: Characters that parsers disagree on or that have no place in a URL's authority.
_AMBIGUOUS_CHARACTERS: Final = re.compile(r"[\\\x00-\x20\x7f]")


def ambiguity(url: str) -> str | None:
    """Why a URL could be read as naming different hosts by different parsers (``None`` if it cannot).

    ``urllib.parse`` ends the authority at ``/``, ``?`` or ``#`` only, while urllib3 (and browsers) also end it at
    ``\\``: ``http://127.0.0.1:9\\@publisher.example/`` is checked as publisher.example and connected to 127.0.0.1.
    So a backslash, a control character or a space in the authority refuses the URL, and so does any other
    disagreement between the host urllib.parse sees and the host urllib3 connects to.
    """
    try:
        import urllib3.util

        found = _AMBIGUOUS_CHARACTERS.search(urlsplit(url).netloc)
        if found:
            return f"{found.group()!r} in the host part"

        theirs = urllib3.util.parse_url(url).host
        ours = urlsplit(url).hostname
    except ValueError as e:  # urllib3's LocationParseError is a ValueError
        return f"unparsable: {e}"
    normal = [(h or "").strip("[]").rstrip(".").lower() for h in (theirs, ours)]
    if normal[0] != normal[1]:
        return f"host {ours!r} to one parser, {theirs!r} to another"
    return None


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
