"""The network layer: one HTTP client (:class:`HttpClient`) that turns every request into a classified
:class:`FetchResult`, with PubFetcher's timeouts, retries, per-host slots and fetchException rule, plus size caps, an
SSRF guard and encoding detection (the services' endpoints are settings: :class:`pubfetch.config.Endpoints`); below
it a :class:`Transport` (requests and FTP, or :class:`MappingTransport` answering from a mapping in tests); beside it
:class:`BrowserRenderer` for pages that need JavaScript and :class:`WarcRecorder`.

The names below are imported on first use, so that importing one module of the layer does not pull in the others.
"""

import typing as _typing

from pubfetch.lazy import lazy_names as _lazy_names

_LAZY = {
    "HttpClient": "pubfetch.net.client",
    "HttpConfig": "pubfetch.net.config",
    "FetchResult": "pubfetch.net.outcome",
    "OutcomeKind": "pubfetch.net.outcome",
    "Request": "pubfetch.net.transport",
    "Response": "pubfetch.net.transport",
    "Transport": "pubfetch.net.transport",
    "Canned": "pubfetch.net.mapping_transport",
    "MappingTransport": "pubfetch.net.mapping_transport",
    "BrowserRenderer": "pubfetch.net.browser",
    "WarcRecorder": "pubfetch.net.warc",
}

__all__ = [*_LAZY]  # noqa: PLE0604 - the lazy table is the one list of public names

if _typing.TYPE_CHECKING:  # pragma: no cover - what type checkers read instead (``as``: re-exported)
    from pubfetch.net.browser import BrowserRenderer as BrowserRenderer
    from pubfetch.net.client import HttpClient as HttpClient
    from pubfetch.net.config import HttpConfig as HttpConfig
    from pubfetch.net.mapping_transport import Canned as Canned
    from pubfetch.net.mapping_transport import MappingTransport as MappingTransport
    from pubfetch.net.outcome import FetchResult as FetchResult
    from pubfetch.net.outcome import OutcomeKind as OutcomeKind
    from pubfetch.net.transport import Request as Request
    from pubfetch.net.transport import Response as Response
    from pubfetch.net.transport import Transport as Transport
    from pubfetch.net.warc import WarcRecorder as WarcRecorder


def __getattr__(name: str) -> object:
    return _lazy(name)


_lazy = _lazy_names(__name__, _LAZY)
