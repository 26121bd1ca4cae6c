"""Tests for pubfetch.net.browser.worker: the thread that owns Playwright and one browser renders queued jobs one at a
time, starts the browser on demand, skips jobs already finished, says when no browser is there, and ends on request.

Jobs that render a page skip when no Chromium is found, as the renderer's tests do.
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Iterator

import pytest

from pubfetch.net.browser import UNAVAILABLE_MESSAGE, chromium, find_chromium
from pubfetch.net.browser.jobs import RenderJob, RenderSettings
from pubfetch.net.browser.worker import Worker
from pubfetch.net.outcome import OutcomeKind
from support.loopback import LoopbackServer, Reply

PAGE = """<!DOCTYPE html><html><head><title>shell</title></head><body><div id="app"></div>
<script>document.getElementById("app").textContent = "filled by a script";</script></body></html>"""
#: Far beyond what a healthy page needs on a loaded machine: these tests check what a page gives, not how fast.
LIMIT_MS = 60_000
WAIT_S = 120


def settings(**changes: object) -> RenderSettings:
    values: dict[str, object] = {"user_agent": "pubfetch-test-worker/1.0", "timeout_ms": LIMIT_MS,
                                 "max_bytes": 1_000_000, "executable": None, "allow_private_addresses": True,
                                 "settle_ms": 200, "kill_grace_ms": 5000}
    values.update(changes)
    return RenderSettings(**values)  # type: ignore[arg-type]


class Running:
    """A started worker over its own queue; ``stop`` ends it by the queue's end marker."""

    def __init__(self, render_settings: RenderSettings) -> None:
        self.jobs: queue.Queue[RenderJob | None] = queue.Queue()
        self.retired: list[Worker] = []
        self.worker = Worker(render_settings, self.jobs, self.retired.append)
        self.worker.start()

    def run(self, job: RenderJob) -> RenderJob:
        self.jobs.put(job)
        assert job.done.wait(WAIT_S), "the worker did not finish the job"
        return job

    def stop(self) -> bool:
        self.jobs.put(None)
        return self.worker.join(WAIT_S)


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer({"/page": Reply(200, PAGE), "/gone": Reply(404, "<html><body>no</body></html>")}) as loopback:
        yield loopback


@pytest.fixture(scope="module")
def running() -> Iterator[Running]:
    if find_chromium() is None:
        pytest.skip(f"no Chromium found for the browser tests ({UNAVAILABLE_MESSAGE})")
    started = Running(settings())
    yield started
    assert started.stop()


def test_a_start_only_job_starts_the_browser(running: Running) -> None:
    job = running.run(RenderJob(None))
    assert (job.result, job.error) == (None, None)
    assert job.executable is not None and job.executable == running.worker.executable


def test_a_queued_page_is_rendered_with_its_scripts_run(running: Running, server: LoopbackServer) -> None:
    job = running.run(RenderJob(server.url("/page")))
    result = job.result
    assert result is not None and result.kind is OutcomeKind.OK and result.status == 200
    assert "filled by a script" in result.text and result.encoding_source == "rendered"
    assert server.requests[-1].headers["User-Agent"] == "pubfetch-test-worker/1.0"


def test_an_error_status_is_classified_like_plain_http(running: Running, server: LoopbackServer) -> None:
    result = running.run(RenderJob(server.url("/gone"))).result
    assert result is not None and (result.kind, result.status, result.message) == (OutcomeKind.NOT_FOUND, 404,
                                                                                  "HTTP 404")


def test_a_job_finished_before_its_turn_is_skipped(running: Running, server: LoopbackServer) -> None:
    before = server.count("/page")
    cancelled = RenderJob(server.url("/page"))
    cancelled.finish()
    running.jobs.put(cancelled)
    after = running.run(RenderJob(server.url("/gone")))  # served after the cancelled one: the queue moved on
    assert after.result is not None and not cancelled.started and server.count("/page") == before


def test_without_a_browser_jobs_fail_with_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("playwright")
    monkeypatch.setattr(chromium, "choose_chromium", lambda configured, bundled: None)
    alone = Running(settings())
    try:
        page = alone.run(RenderJob("http://127.0.0.1:9/never-asked"))
        start = alone.run(RenderJob(None))
    finally:
        assert alone.stop()
    assert page.result is not None and (page.result.kind, page.result.message) == (OutcomeKind.OTHER,
                                                                                    UNAVAILABLE_MESSAGE)
    assert str(page.error) == UNAVAILABLE_MESSAGE and page.executable is None
    assert start.result is None and str(start.error) == UNAVAILABLE_MESSAGE
    assert not alone.worker.alive and alone.retired == []


def test_the_driver_gone_under_an_unawaited_future_is_not_printed_and_other_errors_are(
        caplog: pytest.LogCaptureFixture) -> None:
    """A Ctrl-C that reaches Playwright's driver with the process group closes its connection under futures no one
    awaits any more: an expected end, which asyncio would print at exit as "Future exception was never retrieved"."""
    import asyncio
    import gc

    from pubfetch.net.browser.worker import _DRIVER_GONE

    asyncio_log = logging.getLogger("asyncio")
    asyncio_log.addFilter(_DRIVER_GONE)
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            for message in ("Connection closed while reading from the driver", "something else"):
                future = loop.create_future()
                future.set_exception(Exception(message))
                del future
                gc.collect()
    finally:
        loop.close()
        asyncio_log.removeFilter(_DRIVER_GONE)
    assert [str(r.exc_info[1]) for r in caplog.records if r.exc_info] == ["something else"]
