"""Tests for pubfetch.net.browser.jobs: a render job is finished exactly once, by whichever of the worker and the
watchdog comes first, and a job finished before the worker took it is not begun."""

from __future__ import annotations

import threading

from pubfetch.net.browser.chromium import BrowserUnavailable
from pubfetch.net.browser.jobs import RenderJob, RenderSettings
from pubfetch.net.outcome import FetchResult, OutcomeKind


def result(kind: OutcomeKind) -> FetchResult:
    return FetchResult("https://x/a", "https://x/a", kind)


def test_a_job_is_finished_once_and_keeps_the_first_result() -> None:
    job = RenderJob("https://x/a")
    assert not job.done.is_set() and job.begin() and job.started
    assert job.finish(result(OutcomeKind.OK))
    assert not job.finish(result(OutcomeKind.TIMEOUT), BrowserUnavailable("late"))
    assert job.done.is_set() and job.result.kind is OutcomeKind.OK and job.error is None


def test_a_job_finished_before_it_was_begun_is_not_begun() -> None:
    job = RenderJob("https://x/a")
    assert job.finish(result(OutcomeKind.TIMEOUT))
    assert not job.begin() and not job.started


def test_a_start_only_job_can_finish_with_the_browser_unavailable() -> None:
    job = RenderJob(None)
    assert job.finish(error=BrowserUnavailable("no Chromium"))
    assert job.result is None and str(job.error) == "no Chromium"


def test_of_racing_finishers_exactly_one_wins() -> None:
    job = RenderJob("https://x/a")
    start = threading.Barrier(8)
    wins: list[bool] = []

    def finisher(kind: OutcomeKind) -> None:
        start.wait()
        wins.append(job.finish(result(kind)))

    threads = [threading.Thread(target=finisher, args=(kind,))
               for kind in (OutcomeKind.OK, OutcomeKind.TIMEOUT) * 4]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(wins) == [False] * 7 + [True]


def test_settings_give_the_page_limit_in_seconds() -> None:
    settings = RenderSettings("agent/1", 2500, 1_000_000, None, False, 2000, 5000)
    assert settings.limit_s == 2.5
