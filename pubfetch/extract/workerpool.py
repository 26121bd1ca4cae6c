"""Long-lived worker processes that run one job at a time under a time limit and an address-space cap.

Why: a parser that may loop forever or crash on hostile input (pdfminer.six, PDFium) has to run in a process that can be
killed, but starting a process per file costs more than the extraction itself (a fork-server fork, the pipe, the
imports of the job's module; docs/throughput.md has the figures). A :class:`WorkerPool`
keeps up to ``size`` processes and hands each job to an idle one; the time limit and the cap still hold per job, and a
worker that overruns, dies or runs out of memory is killed and replaced by a fresh one for the next job, so one hostile
file costs only its own job. The pool knows nothing about PDFs: jobs are picklable module-level functions and every
way a job can end is an :class:`Outcome` that the caller turns into its own result shape (``pubfetch.extract.pdf``).
The owner of the pool (the run's ``Context``) closes it, which ends every worker process.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import multiprocessing
import os
import pickle
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Self

from pubfetch.extract.workershare import ATTACH, SharedArgs, WorkerMapping

__all__ = ["Outcome", "OutcomeKind", "WorkerPool"]

log = logging.getLogger(__name__)

OutcomeKind = Literal["ok", "timeout", "died", "memory", "raised", "unsendable", "closed"]

#: What a worker says once its setup is done: a job's time limit starts then.
_READY = ("ready", None)
#: Seconds a new worker may take to be ready (its fork, imports and setup) before it counts as dead.
START_LIMIT = 120.0

#: Bytes asked for each end's send buffer of a worker's pipe (the kernel caps it at ``net.core.wmem_max``): a job's
#: arguments (a PDF, a page's HTML) or its answer then go in one write that the other side reads when it wakes once.
#: With the default (about 200 KB for a Unix socket) a 1 MB PDF went in chunks, each a wake-up of the worker and then
#: of the parent; on a loaded machine each wake-up waits for the scheduler. Memory is taken only while bytes are in
#: flight.
SEND_BUFFER = 8 * 1024 * 1024

#: Jobs a worker runs before it is replaced: bounds what a long run's worker can accumulate (heap fragmentation,
#: caches of the libraries) at the cost of one fork per this many files.
DEFAULT_MAX_JOBS = 200


@dataclass(frozen=True)
class Outcome:
    """How one job ended: ``ok`` with the job's ``value``; ``timeout`` (killed at the limit); ``died`` (the process
    ended without an answer, ``exitcode``); ``memory`` (MemoryError under the cap); ``raised`` (the job raised,
    ``message`` is ``"Type: text"``); ``unsendable`` (the value could not be pickled back, ``message``); ``closed``
    (the pool was closed before the job could run)."""

    kind: OutcomeKind
    value: Any = None
    message: str = ""
    exitcode: int | None = None
    pid: int | None = None


# ---------------------------------------------------------------------------------------------------------------------
# The child side
# ---------------------------------------------------------------------------------------------------------------------


def _limit_memory(limit: int) -> None:
    """Cap this process's address space at ``limit`` bytes (0: no cap) where the platform has RLIMIT_AS."""
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = hard if limit <= 0 else limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (ImportError, AttributeError, ValueError, OSError) as exc:
        log.debug("worker memory limit not set: %s", exc)


def _answer(job: tuple[Callable[..., Any], tuple[Any, ...]], capped: bool, shared: WorkerMapping
            ) -> tuple[OutcomeKind, Any]:
    """The job's answer (its large arguments taken from the shared memory first). Under an address-space cap, a
    SystemError is memory too: C code of an extension (lxml) that fails an allocation may return without setting an
    exception, which Python reports as a SystemError."""
    fn, args = job
    try:
        return "ok", fn(*shared.unpack(args))
    except MemoryError:
        pass
    except SystemError as exc:
        if not capped:
            return "raised", f"{type(exc).__name__}: {exc}"
    except BaseException as exc:  # noqa: BLE001 - whatever the job does, the parent gets an answer
        return "raised", f"{type(exc).__name__}: {exc}"
    gc.collect()  # the job's cyclic garbage (a parse tree) still holds the memory that sending the answer needs
    return "memory", None


def _end_with_parent() -> None:
    """End this worker when the process that started it ends: a job that hangs would otherwise outlive a run killed
    with SIGKILL, since nobody is left to enforce its time limit (and the fork server, its immediate parent, stays up as
    long as any worker does). multiprocessing gives the child a sentinel that becomes ready when that process is gone.
    An idle worker would end anyway: its pipe closes."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        parent.join()
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _serve(conn: Any, setup: Callable[[], None] | None, memory_limit: int) -> None:
    """The worker's loop: receive ``(function, args)``, answer ``(kind, value)``, until ``None`` or the pipe closes.

    No exception may escape (it would only be printed): a job that cannot even be unpickled is a ``raised`` answer.
    Ctrl-C reaches the whole process group; the parent answers it by closing the pool, so the worker ignores it
    (else every idle worker would print a KeyboardInterrupt traceback).
    """
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with_parent()
    if setup is not None:
        setup()
    _limit_memory(memory_limit)
    shared = WorkerMapping()
    try:
        conn.send(_READY)
    except OSError:
        return
    while True:
        try:
            job = conn.recv()
            if job == ATTACH:
                shared.receive(conn)
                continue
        except (EOFError, OSError):
            return
        except MemoryError:
            reply: tuple[OutcomeKind, Any] = ("memory", None)
        except Exception as exc:  # noqa: BLE001 - the job's function or arguments would not unpickle here
            reply = ("raised", f"{type(exc).__name__}: {exc}")
        else:
            if job is None:
                return
            reply = _answer(job, memory_limit > 0, shared)
        try:
            try:
                conn.send(reply)
            except (pickle.PicklingError, TypeError, AttributeError) as exc:  # an odd value from an injected job
                conn.send(("unsendable", f"{type(exc).__name__}: {exc}"))
        except OSError as exc:
            log.debug("worker answer not delivered, parent gone: %s", exc)
            return


# ---------------------------------------------------------------------------------------------------------------------
# The parent side: one process
# ---------------------------------------------------------------------------------------------------------------------


@functools.cache
def _mp_context(preload: tuple[str, ...], daemonic: bool = False) -> multiprocessing.context.BaseContext:
    """A fork-free start method: forking a threaded parent (the fetcher runs hosts concurrently) can deadlock.

    With forkserver the server imports ``preload`` (the job's module and its libraries) once; each worker is then a
    cheap fork of it. Where forkserver does not exist (Windows), and in a ``daemonic`` process, spawn is used: a fresh
    interpreter per worker, not per job. A daemonic process is a pool's child, forked from a parent that may have
    started a fork server of its own, whose state the child inherits but cannot use (the server is not its child).
    """
    if "forkserver" in multiprocessing.get_all_start_methods() and not daemonic:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(list(preload))  # only takes effect if the server is not running yet
        return ctx
    return multiprocessing.get_context("spawn")


#: Held while a daemonic process's flag is lifted for a start (:func:`_children_allowed`), and by whoever reads it.
_DAEMON_FLAG = threading.Lock()


def _is_daemonic() -> bool:
    """Whether this process is daemonic, as it is outside a worker's start (another thread may be starting one)."""
    with _DAEMON_FLAG:
        return bool(multiprocessing.current_process().daemon)


@contextlib.contextmanager
def _children_allowed(daemonic: bool) -> Iterator[None]:
    """Let this process start a worker even where it is ``daemonic``, as a Celery ``--pool prefork`` child is
    (billiard marks its pool processes so, and multiprocessing refuses children to a daemonic process).

    Why it is safe: the rule exists because a daemonic process is ended with its parent and would leave its children
    behind; a pool worker ends on its own when the process that started it is gone (:func:`_end_with_parent`). The
    flag is lifted for the start only. billiard's processes also carry an authentication key that pickles only while
    billiard itself is starting a process, which the start here is made to look like (the key goes to the new worker
    as multiprocessing's own does)."""
    if not daemonic:
        yield
        return
    me = multiprocessing.current_process()
    with _DAEMON_FLAG:
        spawning = _billiard_spawning(me)
        me.daemon = False
        try:
            spawning(object())
            yield
        finally:
            spawning(None)
            me.daemon = True


def _billiard_spawning(me: multiprocessing.process.BaseProcess) -> Callable[[Any], None]:
    """billiard's ``set_spawning_popen`` where ``me`` is a billiard process, else a function that does nothing."""
    if not type(me).__module__.startswith("billiard."):
        return lambda _: None
    from billiard.context import set_spawning_popen

    return set_spawning_popen


def _widen(*conns: Any) -> None:
    """Give each connection's socket a send buffer of :data:`SEND_BUFFER` bytes where the platform lets it (the
    options belong to the socket, so the child's end is set here before it is handed over)."""
    for conn in conns:
        try:
            with socket.socket(fileno=os.dup(conn.fileno())) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        except (OSError, ValueError) as exc:  # not a socket (a Windows pipe), or an option refused: chunks then
            log.debug("worker pipe's send buffer left as it is: %s", exc)


class _Worker:
    """One worker process and the parent's end of its pipe; used by one thread at a time (the pool sees to it)."""

    def __init__(self, ctx: multiprocessing.context.BaseContext, setup: Callable[[], None] | None,
                 memory_limit: int, name: str, *, daemonic: bool = False) -> None:
        self.memory_limit = memory_limit
        self.jobs = 0
        self.ready = False
        self.shared = SharedArgs()  # large arguments go through memory both processes map (workershare)
        self.conn, child = ctx.Pipe(duplex=True)
        _widen(self.conn, child)
        self.process = ctx.Process(  # type: ignore[attr-defined]
            target=_serve, args=(child, setup, memory_limit), name=name, daemon=True)
        try:
            with _children_allowed(daemonic):
                self.process.start()
        finally:
            child.close()  # else the parent's copy keeps the pipe open and a dead worker is never noticed

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def wait_ready(self) -> bool:
        """Whether the worker finished its setup (waiting for it the first time, up to :data:`START_LIMIT`); a worker
        that did not is killed."""
        if not self.ready:
            try:
                self.ready = self.conn.poll(START_LIMIT) and self.conn.recv() == _READY
            except (EOFError, OSError):
                self.ready = False
            if not self.ready:
                self.kill()
        return self.ready

    def run(self, fn: Callable[..., Any], args: tuple[Any, ...], deadline: float) -> Outcome | None:
        """The job's outcome; ``None`` when the worker was already gone before it took the job (the caller may try
        another). A worker whose outcome is not ``ok``/``raised``/``unsendable`` is dead afterwards."""
        self.jobs += 1
        try:
            self.conn.send((fn, self.shared.pack(args, self.conn, self.pid)))
        except (BrokenPipeError, ConnectionResetError, EOFError):
            self.kill()
            return None
        try:
            return self._outcome(deadline)
        finally:
            self.shared.after_job()

    def _outcome(self, deadline: float) -> Outcome:
        """The outcome of the job sent, waited for until ``deadline``."""
        if not self.conn.poll(max(0.0, deadline - time.monotonic())):
            self.kill()
            return Outcome("timeout", pid=self.pid)
        try:
            kind, value = self.conn.recv()
        except (EOFError, OSError):
            self.process.join(timeout=5)
            return Outcome("died", exitcode=self.process.exitcode, pid=self.pid)
        if kind == "ok":
            return Outcome("ok", value=value, pid=self.pid)
        return Outcome(kind, message=value or "", pid=self.pid)

    def stop(self) -> None:
        """Ask the worker to end; kill it if it does not within a second."""
        with contextlib.suppress(OSError, EOFError):
            self.conn.send(None)
        self.process.join(timeout=1)
        self.kill()

    def kill(self) -> None:
        """End the process now and reap it (the pid is free afterwards)."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()
        self.shared.close()


# ---------------------------------------------------------------------------------------------------------------------
# The pool
# ---------------------------------------------------------------------------------------------------------------------


class WorkerPool:
    """Up to ``size`` reusable worker processes, started on demand, each running one job at a time.

    ``setup`` runs once in each worker (a picklable module-level function: quieting a library's logging, say);
    ``preload`` names the modules the fork server imports so that workers start with them. Thread-safe: a caller waits
    for a free worker when ``size`` jobs are running. ``started`` counts the processes started, ``pids()`` lists the
    live ones (both for tests and diagnostics).
    """

    def __init__(self, size: int = 1, *, setup: Callable[[], None] | None = None, preload: tuple[str, ...] = (),
                 max_jobs: int = DEFAULT_MAX_JOBS, name: str = "pubfetch-worker") -> None:
        self.size = max(1, size)
        self.max_jobs = max(1, max_jobs)
        self.started = 0
        self._setup = setup
        self._preload = preload
        self._name = name
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._reserved = 0  # slots taken by callers that are starting a worker
        self._closed = False
        self._cond = threading.Condition()

    def run(self, fn: Callable[..., Any], *args: Any, time_limit: float, memory_limit: int = 0) -> Outcome:
        """Run ``fn(*args)`` in a worker; the ``time_limit`` counts from the moment a worker is free and ready (a
        start, when one is needed, is not the job's time: a loaded machine's slow fork must not cost a page). ``fn``
        must be a picklable module-level function; the address space of the worker is capped at ``memory_limit``
        bytes (0: no cap). Never raises for what the job does."""
        for _ in range(2):  # a second time only when the worker was gone before it took the job
            worker = self._acquire()
            if worker is None:
                return Outcome("closed")
            outcome: Outcome | None = None
            try:
                if isinstance(worker, int) or worker.memory_limit != memory_limit:
                    worker = self._start(worker, memory_limit)
                if not worker.wait_ready():
                    outcome = Outcome("died", message="worker did not start", exitcode=worker.process.exitcode,
                                      pid=worker.pid)
                else:
                    outcome = worker.run(fn, args, time.monotonic() + time_limit)
            finally:
                self._release(worker, outcome)
            if outcome is not None:
                return outcome
        return Outcome("died", message="worker gone before the job")

    def pids(self) -> list[int]:
        """Process ids of the live workers."""
        with self._cond:
            workers = [*self._idle, *self._busy]
        return sorted(w.pid for w in workers if w.pid is not None)

    def close(self) -> None:
        """End every worker: idle ones are asked to stop, busy ones killed (their callers get ``died``) and waited for.

        Idempotent; a job submitted afterwards gets ``closed``.
        """
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            busy = list(self._busy)
            self._cond.notify_all()
        for worker in busy:
            if worker.process.is_alive():
                worker.process.kill()  # the caller's thread sees the pipe close, reaps the process and releases it
        for worker in idle:
            worker.stop()
        with self._cond:
            self._cond.wait_for(lambda: not self._busy and not self._reserved, timeout=30)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- bookkeeping ---------------------------------------------------------------------------------------------------

    def _acquire(self) -> _Worker | int | None:
        """An idle worker, or ``0`` when a slot is reserved for a new one, or ``None`` once the pool is closed."""
        with self._cond:
            while True:
                if self._closed:
                    return None
                if self._idle:
                    worker = self._idle.pop()
                    self._busy.add(worker)
                    return worker
                if len(self._busy) + self._reserved < self.size:
                    self._reserved += 1
                    return 0
                self._cond.wait()

    def _start(self, slot: _Worker | int, memory_limit: int) -> _Worker:
        """A new worker in place of ``slot`` (a reservation, or an idle worker whose memory cap differs)."""
        if isinstance(slot, _Worker):
            slot.stop()
            with self._cond:
                self._busy.discard(slot)
                self._reserved += 1
        try:
            daemonic = _is_daemonic()
            worker = _Worker(_mp_context(self._preload, daemonic), self._setup, memory_limit, self._name,
                             daemonic=daemonic)
        except BaseException:
            with self._cond:
                self._reserved -= 1
                self._cond.notify_all()
            raise
        with self._cond:
            self._reserved -= 1
            self._busy.add(worker)
            self.started += 1
        return worker

    def _release(self, worker: _Worker | int, outcome: Outcome | None) -> None:
        """Back to the idle list if it is healthy, fresh enough and the pool open; else ended (its slot freed)."""
        if not isinstance(worker, _Worker):  # the start itself failed; _start gave the slot back
            return
        healthy = outcome is not None and outcome.kind in ("ok", "raised", "unsendable") and (
            outcome.kind != "raised" or not outcome.message.startswith(("KeyboardInterrupt", "SystemExit")))
        with self._cond:
            keep = healthy and not self._closed and worker.jobs < self.max_jobs and worker.process.is_alive()
            if keep:
                self._busy.discard(worker)
                self._idle.append(worker)
                self._cond.notify_all()
                return
        if healthy:
            worker.stop()
        else:
            worker.kill()
        with self._cond:
            self._busy.discard(worker)
            self._cond.notify_all()
