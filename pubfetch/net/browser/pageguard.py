"""One page's guard: refuses requests to forbidden addresses and unneeded resources, and tracks the main document.

Playwright's routing sees the page's requests and WebSockets (the guard proxy checks the connections again, including
the redirect hops Chromium follows itself); images, media and fonts are not loaded, as PubFetcher downloads no images.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Final

from pubfetch.net import addresses
from pubfetch.net.urls import HTTP_SCHEMES, hostname, scheme

if TYPE_CHECKING:
    from playwright.sync_api import Request, Response, Route, WebSocketRoute

    from pubfetch.net.browser.jobs import RenderSettings

logger = logging.getLogger(__name__)

_SKIPPED_RESOURCES: Final = frozenset({"image", "media", "font"})
_REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})


class PageWatch:
    """Per-page request filter and main-document tracker (its callbacks run on the worker thread)."""

    def __init__(self, settings: RenderSettings) -> None:
        self._settings = settings
        self.main: Response | None = None
        self.blocked: dict[str, str] = {}

    def forbidden(self, url: str) -> str | None:
        """Why this request must not be made, ``None`` if it may."""
        if self._settings.allow_private_addresses or scheme(url) not in HTTP_SCHEMES:
            return None
        host = hostname(url)
        if host is None:
            return None
        reason = addresses.forbidden_host_reason(host)
        return f"{host} is a {reason}" if reason else None

    def route(self, route: Route) -> None:
        from playwright.sync_api import Error

        request = route.request
        try:
            if request.resource_type in _SKIPPED_RESOURCES:
                route.abort("blockedbyclient")
                return
            reason = self.forbidden(request.url)
            if reason:
                self.blocked[request.url] = reason
                logger.warning("browser request refused: %s (%s)", request.url, reason)
                route.abort("blockedbyclient")
                return
            route.continue_()
        except Error as e:  # the page went away meanwhile
            logger.debug("route of %s not handled: %s", request.url, e)

    def route_web_socket(self, socket: WebSocketRoute) -> None:
        """WebSockets are not seen by :meth:`route`: check them here (the guard proxy checks them again)."""
        url = socket.url
        reason = self.forbidden(re.sub(r"^ws(s?):", r"http\1:", url, flags=re.IGNORECASE))
        if reason:
            self.blocked[url] = reason
            logger.warning("browser WebSocket refused: %s (%s)", url, reason)
            socket.close(code=1008, reason="forbidden address")
            return
        socket.connect_to_server()

    def on_response(self, response: Response) -> None:
        try:
            request = response.request
            if not request.is_navigation_request() or response.frame.parent_frame is not None:
                return
            if scheme(response.url) not in HTTP_SCHEMES:
                return
            if response.status in _REDIRECT_STATUSES and response.headers.get("location"):
                return
        except Exception:  # noqa: BLE001 - a detached frame; not the main document
            return
        self.main = response

    def redirect_refusal(self, response: Response) -> str | None:
        """Why the main document must be dropped: it came through (or from) a forbidden address."""
        urls = [response.url]
        request: Request | None = response.request.redirected_from
        while request is not None:
            urls.append(request.url)
            request = request.redirected_from
        for url in urls:
            reason = self.forbidden(url)
            if reason:
                return f"redirected to {url}: {reason}"
        return None
