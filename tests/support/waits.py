"""Waiting for an event in a test: polled, with a ceiling that only a hung run reaches.

A fixed sleep is a bet on the machine's speed, and the machine running the suite is often loaded; these return as
soon as the event has come, and fail the test (rather than hang it) when it never does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

T = TypeVar("T")


def wait_until(condition: Callable[[], T], ceiling_s: float, what: str, every_s: float = 0.02) -> T:
    """The first true value of ``condition()``, polled every ``every_s``; fails the test naming ``what`` when none
    came within ``ceiling_s``."""
    deadline = time.monotonic() + ceiling_s
    while True:
        got = condition()
        if got:
            return got
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(every_s)


def within(seconds: float, fn: Callable[[], Any]) -> Any:
    """``fn``'s result (or its exception, re-raised), failing the test if it has not returned after ``seconds``: for a
    call that could hang, whose own time limits are what the test checks."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            box["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"did not finish within {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")
