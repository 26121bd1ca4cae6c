"""The Chromium binary: where it is, how it is started, and what to say when there is none.

A configured path comes first, then Playwright's own browser, then a system one, so that a machine with Chromium from
the distribution needs no Playwright download; a configured path that is not there is reported and skipped rather
than failing every page. The launch switches keep the browser quiet: it must contact nobody but the pages it renders.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import threading
from typing import Final

logger = logging.getLogger(__name__)

#: Environment variable naming the Chromium binary to use.
ENV_VAR: Final = "PUBFETCH_CHROMIUM"
#: System binaries tried, in order, when neither a configured path nor Playwright's own browser is there.
SYSTEM_CANDIDATES: tuple[str, ...] = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")
#: A page's RTCPeerConnection sends STUN/TURN over UDP straight from the browser, around the guard proxy (which sees
#: only TCP): ``stun:127.0.0.1:N`` reaches internal services. With "disable_non_proxied_udp" WebRTC uses the proxy or
#: nothing. Chromium 156 reads the first switch; the second is the name other builds document (an unknown switch is
#: ignored).
WEBRTC_ARGS: Final = ("--webrtc-ip-handling-policy=disable_non_proxied_udp",
                      "--force-webrtc-ip-handling-policy=disable_non_proxied_udp")
#: Chromium switches: no sandbox (containers run as root), no GPU, /tmp instead of a small /dev/shm (Docker's 64 MB
#: makes renderers crash), and no phoning home: no background networking, component updates (update.googleapis.com),
#: sync, default apps, safe-browsing and domain-reliability reports, translation, hyperlink pings or DNS prefetching.
#: WebRTC sends no UDP of its own (:data:`WEBRTC_ARGS`).
LAUNCH_ARGS: Final = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-dev-shm-usage", "--disable-component-update", "--disable-sync", "--disable-extensions",
                      "--disable-default-apps", "--no-first-run", "--no-default-browser-check",
                      "--disable-domain-reliability", "--disable-client-side-phishing-detection",
                      "--disable-breakpad", "--metrics-recording-only", "--no-pings", "--dns-prefetch-disable",
                      "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication,"
                      "CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,CalculateNativeWinOcclusion",
                      *WEBRTC_ARGS)
UNAVAILABLE_MESSAGE: Final = (
    "JavaScript fetching needs Chromium: install it with `apt-get install chromium` or `playwright install chromium`, "
    f"or set {ENV_VAR}=/path"
)
#: The start of the message when a browser is there but did not start (interrupted, crashed, out of memory):
#: installing one would not help, so the message does not say to.
NOT_STARTED: Final = "JavaScript fetching is unavailable:"


class BrowserUnavailable(RuntimeError):
    """No usable Chromium (or no Playwright): JavaScript pages cannot be rendered on this machine."""



def _usable(candidate: str) -> str | None:
    """The path of an executable file named by ``candidate`` (a path, or a command looked up on PATH)."""
    candidate = os.path.expanduser(candidate.strip())
    if not candidate:
        return None
    if os.sep in candidate or (os.altsep and os.altsep in candidate):
        path = os.path.abspath(candidate)
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return shutil.which(candidate)


def choose_chromium(configured: str | None, bundled: str | None) -> str | None:
    """Pick the browser: the configured one (argument, else ``PUBFETCH_CHROMIUM``), then Playwright's own, then the
    system's. A configured path that is not there is reported and skipped rather than failing every page."""
    configured = configured or None  # PUBFETCH_CHROMIUM is read by the configuration (FetchConfig.chromium)
    if configured:
        found = _usable(configured)
        if found:
            return found
        logger.warning("configured Chromium %r is not an executable file; looking for another browser", configured)
    if bundled and _usable(bundled):
        return bundled
    for name in SYSTEM_CANDIDATES:
        found = _usable(name)
        if found:
            return found
    return None


@functools.lru_cache(maxsize=1)
def _bundled_chromium() -> str | None:
    """Where Playwright keeps its own Chromium (whether or not it is installed); ``None`` without Playwright.

    Asking needs Playwright's driver, which refuses to start in a thread running an asyncio loop, so it is asked from
    a short-lived thread of its own.
    """
    found: list[str] = []

    def ask() -> None:
        try:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as pw:
                found.append(pw.chromium.executable_path)
        except Exception as e:  # noqa: BLE001 - any failure just means "no bundled browser"
            logger.debug("cannot ask Playwright for its Chromium: %s", e)

    thread = threading.Thread(target=ask, name="pubfetch-playwright-probe", daemon=True)
    thread.start()
    thread.join(30)
    return found[0] if found else None


def find_chromium(configured: str | None = None) -> str | None:
    """The Chromium binary JavaScript rendering would use, or ``None`` if there is none.

    Order: ``configured`` (else the ``PUBFETCH_CHROMIUM`` environment variable) when it names an executable, then
    Playwright's own browser when it is installed, then ``/usr/bin/chromium``, ``chromium``, ``chromium-browser`` and
    ``google-chrome`` on PATH.
    """
    return choose_chromium(configured, _bundled_chromium())
