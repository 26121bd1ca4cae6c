"""Whether this process was interrupted (Ctrl-C), known the moment the signal comes.

Python raises KeyboardInterrupt in the main thread only; the fetching threads learn of the stop when the main thread,
unwinding, halts the run's client. Meanwhile they could send one more request, sleep on a rate limit, start Chromium,
or see the Playwright driver or Chromium die of the same Ctrl-C (a terminal signals its whole foreground process
group) and report it as a browser that "did not start". The command line's SIGINT handler (:func:`sigint_marked`)
marks the process interrupted and wakes every waiter registered with :func:`wake_on_interrupt` before raising
KeyboardInterrupt as Python's own handler does; the network watch (``pubfetch.net.reachability``) and the browser
consult :func:`interrupted`. A library caller that installs no handler is never marked.
"""

from __future__ import annotations

import os
import signal
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_interrupted = threading.Event()
_wakers: weakref.WeakSet[threading.Event] = weakref.WeakSet()


def interrupted() -> bool:
    """Whether a SIGINT came while :func:`sigint_marked` was in force."""
    return _interrupted.is_set()


def wake_on_interrupt(event: threading.Event) -> None:
    """Set ``event`` when the process is interrupted (held weakly: a waiter that is gone is forgotten)."""
    _wakers.add(event)
    if _interrupted.is_set():
        event.set()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _interrupted.set()
    for event in list(_wakers):
        event.set()
    raise_keyboard_interrupt(signum, frame)


def raise_keyboard_interrupt(signum: int, frame: FrameType | None) -> None:
    """Python's SIGINT handler, but never inside a weak reference's callback (a ``WeakSet`` dropping an entry):
    Python prints a KeyboardInterrupt raised there as "Exception ignored in ... Traceback" and drops it, so the
    Ctrl-C would be lost. There the signal is sent again, to be handled once the callback has returned."""
    if _in_weakref_callback(frame):
        threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGINT), name="pubfetch-sigint-again",
                         daemon=True).start()
        return
    raise KeyboardInterrupt


def _in_weakref_callback(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.endswith(("_weakrefset.py", "weakref.py")) and frame.f_code.co_name in (
                "_remove", "remove", "_cb"):
            return True
        frame = frame.f_back
    return False


@contextmanager
def sigint_marked() -> Iterator[None]:
    """While inside, SIGINT marks the process interrupted (see the module docstring), then raises KeyboardInterrupt;
    Python's handler is restored afterwards. Outside the main thread (where signals cannot be handled) it does
    nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _interrupted.clear()
