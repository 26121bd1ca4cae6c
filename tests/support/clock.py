"""A clock that says the time a test sets: the model takes its clock as an argument so that cooldowns and timestamps
are tested without waiting."""

from __future__ import annotations


class FixedClock:
    """Epoch milliseconds of ``now``, which a test may move forward."""

    def __init__(self, now: int = 1_700_000_000_000):
        self.now = now

    def __call__(self) -> int:
        return self.now
