"""A submitter's task messages seen, or held, as they are sent: what happens on the workers' side while a slow
submitter (a queue across a slow link) is still sending its job.

:class:`HeldSends` replaces Celery's sending of one task message for the time of a ``with`` block: each message is
sent, then the sending thread waits at an event the test releases, so the test acts between two messages of one job
without guessing how long a send takes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

#: Longest a test waits for a send it expects: only a hung submitter reaches it.
CEILING_S = 60.0


class HeldSends:
    """Every task message sent inside the block is passed to ``seen`` (its headers: ``id``, ``group`` ...) before it
    goes; from the
    ``hold_after``-th one on, the sender then waits until :meth:`release`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, hold_after: int | None = None,
                 seen: Callable[[dict[str, Any]], None] | None = None) -> None:
        from celery.app.amqp import AMQP

        self.sent: list[str] = []
        self._hold_after = hold_after
        self._seen = seen
        self._released = threading.Event()
        self._reached = threading.Event()
        create = AMQP._create_task_sender

        def sender(amqp: Any) -> Callable[..., Any]:
            send_one = create(amqp)

            def send(producer: Any, name: str, message: Any, **kwargs: Any) -> Any:
                headers = message[0]  # (headers, properties, body, sent event)
                if self._seen is not None:
                    self._seen(headers)
                result = send_one(producer, name, message, **kwargs)
                self.sent.append(str(headers["id"]))
                if self._hold_after is not None and len(self.sent) >= self._hold_after:
                    self._reached.set()
                    if not self._released.wait(CEILING_S):
                        raise AssertionError("the test never released the held sends")
                return result

            return send

        # the sender is made once per Celery app (a cached property): the submitter's app is made after this
        monkeypatch.setattr(AMQP, "_create_task_sender", sender)

    def wait_held(self) -> None:
        """Return once the sender is held (it has sent ``hold_after`` messages)."""
        assert self._reached.wait(CEILING_S), "the submitter never reached the held send"

    def release(self) -> None:
        self._released.set()
