"""JavaScript rendering: fetch a page with headless Chromium (Playwright) and classify the result like plain HTTP.

PubFetcher renders pages that need JavaScript with HtmlUnit (1.1.1) or headless Firefox (develop), in a thread it can
kill, because a few sites never finish. Here a headless Chromium does the rendering, driven by Playwright's sync API.

Why the threads look the way they do:

* Playwright's sync API is bound to the thread that started it, and fetch workers are many threads. So one dedicated
  worker thread owns Playwright and the browser and serves render requests from a queue, one page at a time; the
  browser is started on first use and reused (a fresh browser context per page keeps cookies and storage apart).
* A page can hang the worker in a call that has no timeout of its own: ``page.content()`` waits forever behind a
  script stuck in a loop, and closing such a page can hang too. Every Playwright call that takes a timeout gets what is
  left of the page's limit; a watchdog thread covers the rest: when a page is still busy ``kill_grace_ms`` after its
  limit, the browser process is killed (found by a marker argument on its command line), which makes the stuck call
  fail at once; the page becomes a TIMEOUT and the next page starts a new browser. If even that does not free the
  worker, it is abandoned and a new worker takes over the queue.
* Plain HTTP fetching must not pay for any of this: Playwright is imported only when a page is rendered.

Results are :class:`~pubfetch.net.outcome.FetchResult`, as from :class:`~pubfetch.net.client.HttpClient`: the status
of the main document decides the kind (404 -> NOT_FOUND, ...), ``text`` is the DOM serialised after the scripts ran
(``body`` is its UTF-8 encoding, so parse ``text``: a ``<meta charset>`` in it may name another encoding), non-HTML
documents (PDF, XML) are UNSUPPORTED_TYPE (with ``is_pdf``) for the caller to fetch plainly, as PubFetcher does.

URLs are treated as untrusted: unless ``allow_private_addresses``, the page and every request it makes are refused when
the host is a loopback/private/link-local/metadata address (:mod:`pubfetch.net.addresses`). Playwright's routing sees
neither WebSockets nor the hops of redirects Chromium follows itself, so all of Chromium's traffic goes through a
:class:`~pubfetch.net.guardproxy.GuardProxy` on 127.0.0.1 that checks the address it actually connects to: a
WebSocket, worker, fetch, script or iframe reaching a loopback service (directly or by a redirect) fails there. The
routes still refuse forbidden hosts early (a clean FORBIDDEN_ADDRESS for the main document), and a main document that
was redirected to such an address is dropped. Images, media and fonts are not loaded (PubFetcher does not download
images either): they cost time and hold nothing to extract.

The rooms: :mod:`~pubfetch.net.browser.chromium` (finding the binary, its launch switches),
:mod:`~pubfetch.net.browser.processes` (killing a hung browser), :mod:`~pubfetch.net.browser.outcome` (classifying
results), :mod:`~pubfetch.net.browser.jobs` (what the renderer hands the worker), :mod:`~pubfetch.net.browser.pageguard`
(one page's request filter), :mod:`~pubfetch.net.browser.worker` (the thread and its watchdog) and
:mod:`~pubfetch.net.browser.renderer` (:class:`BrowserRenderer`, the public face).
"""

from pubfetch.net.browser.chromium import ENV_VAR, UNAVAILABLE_MESSAGE, BrowserUnavailable, find_chromium
from pubfetch.net.browser.renderer import (
    DEFAULT_KILL_GRACE_MS,
    DEFAULT_PAGE_TIMEOUT_MS,
    DEFAULT_SETTLE_MS,
    BrowserRenderer,
    page_timeout_ms,
)

__all__ = [
    "DEFAULT_KILL_GRACE_MS",
    "DEFAULT_PAGE_TIMEOUT_MS",
    "DEFAULT_SETTLE_MS",
    "ENV_VAR",
    "UNAVAILABLE_MESSAGE",
    "BrowserRenderer",
    "BrowserUnavailable",
    "find_chromium",
    "page_timeout_ms",
]
