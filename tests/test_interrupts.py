"""Ctrl-C at several moments of a run: pubfetch stops at once with exit status 130, keeps what it stored, and sends
nothing after the signal (counted at the loopback services): no rate-limit or Retry-After wait, no Chromium started or
page rendered, no browser "did not start" message, no progress bar drawn after its last lines. The signal goes to the
whole process group, as a terminal's Ctrl-C does (Playwright's driver gets it too). Each test waits for an event (a
request arriving, a publication stored) before the signal; the ceilings only catch a run that does not stop."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pubfetch.net.browser import find_chromium
from pubfetch.net.browser.renderer import DEFAULT_KILL_GRACE_MS
from support.dbwait import wait_while_running
from support.loopback import LoopbackServer, Reply, Request
from support.procs import children_supported, descendants
from support.pubfetch_processes import REPO, pubfetch_cmd, service_env, write_ids
from support.synthetic import Article, SyntheticServices, serve_doi_page

#: a run that does not stop within this after the signal has failed (the waits it must not sit out are longer)
STOP_CEILING_S = 30
#: the Retry-After of the busy service: the run would wait for it before its retry
RETRY_AFTER_S = 60
#: the ceiling for the event before the signal (a hung run only)
EVENT_CEILING_S = 240


@contextmanager
def running(args: list[object], env: dict[str, str], cwd: Path) -> Iterator[subprocess.Popen[str]]:
    """``pubfetch ARGS`` in a session of its own (so that the signal reaches its process group, as from a terminal),
    killed if the test leaves it running."""
    proc = subprocess.Popen(pubfetch_cmd(*args), env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def ctrl_c(proc: subprocess.Popen[str], reached: threading.Event | None = None, *,
           condition=None, group: bool = True) -> str:
    """Wait for ``reached`` (or ``condition``), press Ctrl-C (to the process group, as a terminal does, or with
    ``group`` False to pubfetch's process alone, as ``kill -INT`` does), and return stderr once the run has stopped."""
    if reached is not None:
        wait_while_running(proc, reached.is_set, EVENT_CEILING_S)
    else:
        wait_while_running(proc, condition, EVENT_CEILING_S)
    assert proc.poll() is None, proc.communicate()
    if group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=STOP_CEILING_S)[1]
    except subprocess.TimeoutExpired:
        pytest.fail(f"the run did not stop within {STOP_CEILING_S} s of Ctrl-C")


def assert_interrupted(proc: subprocess.Popen[str], err: str) -> list[str]:
    """Exit 130, the interrupt as the one error and the last line, nothing about a browser or a traceback."""
    lines = err.splitlines()
    assert proc.returncode == 130, err
    assert lines[-1] == "pubfetch: error: interrupted", err
    assert [line for line in lines if line.startswith("pubfetch: error:")] == [lines[-1]], err
    assert "Traceback" not in err and "JavaScript fetching" not in err and "Chromium" not in err, err
    return lines


def stored_pmids(db: Path) -> set[str]:
    if not db.exists():
        return set()
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
        try:
            return {r[0] for r in conn.execute("SELECT json_extract(json, '$.pmid.content') FROM publications")}
        except sqlite3.OperationalError:  # the schema is being created
            return set()


def env_for(services: SyntheticServices, tmp_path: Path) -> dict[str, str]:
    return service_env(services, PUBFETCH_RATE_DB=str(tmp_path / "rates.sqlite"),
                       XDG_CONFIG_HOME=str(tmp_path / "no-config"), PUBFETCH_NCBI_EMAIL="curator@example.org",
                       PUBFETCH_UNPAYWALL_EMAIL="curator@example.org")


@pytest.mark.slow
def test_ctrl_c_before_fetching_starts_sends_nothing(tmp_path: Path) -> None:
    ids = tmp_path / "ids.fifo"
    os.mkfifo(ids)  # the run blocks reading it: nothing is fetched yet
    opened = threading.Event()
    with SyntheticServices(2) as services, running(
            ["-pub-file", ids, "-db-fetch-end", tmp_path / "pubs.db", "--allow-private-addresses", "--no-javascript"],
            env_for(services, tmp_path), tmp_path) as proc:

        def open_writer() -> None:
            with open(ids, "w") as writer:  # returns once the run has opened the file for reading
                opened.set()
                writer.flush()
                released.wait(EVENT_CEILING_S)

        released = threading.Event()
        thread = threading.Thread(target=open_writer, daemon=True)
        thread.start()
        try:
            err = ctrl_c(proc, opened)
        finally:
            released.set()
            thread.join()
        asked = len(services.server.requests)
    assert_interrupted(proc, err)
    assert asked == 0


@pytest.mark.slow
def test_ctrl_c_mid_fetch_keeps_what_was_stored_and_cuts_the_request_in_flight(tmp_path: Path) -> None:
    kept, held = Article(0), Article(2)
    arrived = threading.Event()
    db = tmp_path / "pubs.db"
    with SyntheticServices(3) as services:
        answer = services.handle

        def holding(request: Request) -> Reply:
            if request.path.endswith("/search") and held.pmid in str(request.query):
                arrived.set()
                return Reply(hold=True)  # never answered: the interrupt lands while it is in flight
            return answer(request)

        services.server.routes["/*"] = holding
        ids = write_ids(tmp_path / "ids.txt", [kept.pmid, held.pmid])
        with running(["-pub-file", ids, "-db-fetch-end", db, "--allow-private-addresses", "--no-javascript",
                      "--batch-size", "1", "--progress", "--timeout", "600000"], env_for(services, tmp_path),
                     tmp_path) as proc:
            err = ctrl_c(proc, condition=lambda: arrived.is_set() and kept.pmid in stored_pmids(db))
            at_signal = len(services.server.requests)  # the held search was the last request asked
        asked = len(services.server.requests)
    lines = assert_interrupted(proc, err)
    summary = "pubfetch: 1 publication: 1 fetched, 0 skipped; 1 final, 0 partial, 0 failed"
    assert lines[-2] == summary, err
    assert "\r" not in err.rpartition(summary)[2]  # the progress bar is not drawn again after the summary
    assert asked == at_signal
    assert stored_pmids(db) == {kept.pmid}  # kept; the one cut in flight is not stored as complete


@pytest.mark.slow
def test_ctrl_c_during_a_retry_after_wait_stops_without_waiting(tmp_path: Path) -> None:
    busy = threading.Event()
    with SyntheticServices(1) as services:
        answer = services.handle

        def too_many(request: Request) -> Reply:
            if request.path.endswith("/search"):
                busy.set()
                return Reply(429, "Too Many Requests", "text/plain", {"Retry-After": str(RETRY_AFTER_S)})
            return answer(request)

        services.server.routes["/*"] = too_many
        ids = write_ids(tmp_path / "ids.txt", services.pmids())
        with running(["-pub-file", ids, "-db-fetch-end", tmp_path / "pubs.db", "--allow-private-addresses",
                      "--no-javascript"], env_for(services, tmp_path), tmp_path) as proc:
            err = ctrl_c(proc, busy)  # within the ceiling: the 60 s Retry-After is not waited for
            at_end = len(services.server.requests)
        searches = sum(1 for r in services.server.requests if r.path.endswith("/search"))
    assert_interrupted(proc, err)
    assert searches == 1 and at_end == len(services.server.requests)  # its retry was never sent


TOOL_PAGE = "<html><head><title>A tool</title></head><body><noscript>Enable JavaScript</noscript></body></html>"


@pytest.mark.slow
@pytest.mark.skipif(find_chromium() is None, reason="no Chromium found")
def test_ctrl_c_during_a_page_render_ends_the_render_quietly(tmp_path: Path) -> None:
    rendering = threading.Event()
    asked: list[str] = []

    def page(request: Request) -> Reply:
        asked.append(request.headers.get("User-Agent", ""))
        if len(asked) == 1:
            return Reply(200, TOOL_PAGE)  # a plain fetch: too thin, with a <noscript>, so it is rendered
        rendering.set()
        return Reply(hold=True)  # Chromium's request: the interrupt lands while the page renders

    with LoopbackServer({"/tool": page}) as site, SyntheticServices(1) as services:
        with running(["-web", site.url("/tool"), "-db-fetch-end", tmp_path / "pages.db",
                      "--allow-private-addresses"], env_for(services, tmp_path), tmp_path) as proc:
            err = ctrl_c(proc, rendering)
            at_signal = len(asked)
    lines = assert_interrupted(proc, err)
    assert lines[-2] == "pubfetch: 0 webpages/docs: 0 final, 0 not final", err
    assert len(asked) == at_signal == 2


def js_rules(tmp_path: Path) -> Path:
    """Journal rules that render the synthetic publisher pages (``/article/N``) with JavaScript."""
    journals = tmp_path / "journals.yaml"
    journals.write_text("'127\\.0\\.0\\.1:\\d+/article/': loop\n---\nloop:\n  title: 'h1'\n---\n"
                        "- '127\\.0\\.0\\.1:\\d+/article/'\n", encoding="utf-8")
    return journals


def chromium_started(pid: int) -> bool:
    """Whether a Chromium (``--headless``) runs below ``pid``, started by Playwright's driver."""
    for child in descendants(pid):
        try:
            if b"--headless" in Path(f"/proc/{child}/cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


@pytest.mark.slow
@pytest.mark.skipif(find_chromium() is None or not children_supported(), reason="no Chromium found, or no /proc")
def test_ctrl_c_while_chromium_starts_says_nothing_of_the_browser(tmp_path: Path) -> None:
    closed = Article(1)
    with SyntheticServices(2) as services:
        serve_doi_page(services, closed, "<html><body><h1>A page</h1></body></html>")
        ids = write_ids(tmp_path / "ids.txt", [closed.pmid])
        with running(["-pub-file", ids, "-db-fetch-end", tmp_path / "pubs.db", "--allow-private-addresses",
                      "--journalsYaml", js_rules(tmp_path)], env_for(services, tmp_path), tmp_path) as proc:
            # the terminal's Ctrl-C reaches Playwright's driver too: the launch fails under it, which is no news
            err = ctrl_c(proc, condition=lambda: chromium_started(proc.pid))
    assert_interrupted(proc, err)


@pytest.mark.slow
@pytest.mark.skipif(find_chromium() is None, reason="no Chromium found")
@pytest.mark.parametrize("group", [True, False], ids=["terminal", "kill-INT"])
def test_ctrl_c_during_a_publication_page_render_does_not_wait_for_the_page(tmp_path: Path, group: bool) -> None:
    """From a terminal, Playwright's driver gets the Ctrl-C too and the render fails under it (quietly); signalled
    alone, pubfetch cuts the render itself instead of waiting out the page's limit (8 x --timeout)."""
    closed = Article(1)  # closed access: its DOI leads to the publisher's page, which a rule renders with JavaScript
    with SyntheticServices(2) as services:
        path = serve_doi_page(services, closed, "")
        services.extra[path] = Reply(hold=True)  # Chromium's request: never answered while the page renders
        ids = write_ids(tmp_path / "ids.txt", [closed.pmid])
        with running(["-pub-file", ids, "-db-fetch-end", tmp_path / "pubs.db", "--allow-private-addresses",
                      "--journalsYaml", js_rules(tmp_path), "--timeout", "600000"], env_for(services, tmp_path),
                     tmp_path) as proc:
            err = ctrl_c(proc, condition=lambda: services.counts["extra:" + path] > 0, group=group)
            at_signal = len(services.server.requests)
        asked = len(services.server.requests)
    lines = assert_interrupted(proc, err)
    assert lines[-2] == "pubfetch: 0 publications: 0 fetched, 0 skipped; 0 final, 0 partial, 0 failed", err
    assert asked == at_signal


def test_without_chromium_the_run_goes_on_with_one_warning_and_no_error(
        env: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a Ctrl-C, but the other line that broke a run's output: with no browser, the pages that wanted JavaScript
    are fetched plainly, and the run says so once, as a warning (an error line mid-run read as if the run failed)."""
    from pubfetch.net.browser import chromium, worker

    monkeypatch.setattr(chromium, "choose_chromium", lambda configured, bundled: None)
    monkeypatch.setattr(worker, "_reported_unavailable", threading.Event())  # as in a new process
    with LoopbackServer({"/one": Reply(200, TOOL_PAGE), "/two": Reply(200, TOOL_PAGE)}) as site:
        run = cli("-web", site.url("/one"), site.url("/two"), "-fetch", "--allow-private-addresses")
    lines = run.lines
    assert not [line for line in lines if line.startswith("pubfetch: error:")], lines
    said = [line for line in lines if "Chromium" in line]
    assert len(said) == 1 and said[0].startswith("pubfetch: warning: JavaScript fetching needs Chromium: "), lines
    assert said[0].endswith("; pages that need JavaScript are fetched without it"), said
    assert lines[-1].startswith("pubfetch: 2 webpages/docs: "), lines


def test_a_sigint_marks_the_process_interrupted_and_halts_every_watch(env: Path) -> None:
    from pubfetch import interrupts
    from pubfetch.net.reachability import NetworkWatch, NotSent

    watch = NetworkWatch()
    with interrupts.sigint_marked():
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            threading.Event().wait(EVENT_CEILING_S)  # the handler raises here, at the latest
        assert interrupts.interrupted() and watch.halted
        with pytest.raises(NotSent):
            watch.pause(EVENT_CEILING_S)  # a rate limit or Retry-After is not waited out
    assert not interrupts.interrupted() and not watch.halted  # the handler and the mark end with the command
    watch.pause(0.01)  # a later wait is waited again: the wake the ended mark left is put aside
    assert not watch._halt.is_set()


def test_a_runs_rate_limit_and_retry_waits_end_when_it_stops(env: Path) -> None:
    from pubfetch.config import FetchConfig
    from pubfetch.engine.assembly import FetchRun
    from pubfetch.net.reachability import NotSent

    with FetchRun(FetchConfig()) as run:
        client = run.context.client
        limiter = client._rate_layer.limiter  # the run's own limiter, waiting on the run's watch
        assert limiter.sleep == client.watch.pause
        failed: list[BaseException] = []

        def wait_for_a_permit() -> None:
            try:
                limiter.sleep(EVENT_CEILING_S)
            except BaseException as e:  # noqa: BLE001 - handed to the test
                failed.append(e)

        waiter = threading.Thread(target=wait_for_a_permit)
        waiter.start()
        resume = run.context.interrupt()
        waiter.join(STOP_CEILING_S)
        assert not waiter.is_alive() and len(failed) == 1 and isinstance(failed[0], NotSent)
        resume()
        assert not client.watch.halted  # the context serves its owner again


def test_an_interrupted_run_starts_no_browser(env: Path) -> None:
    from pubfetch.config import FetchConfig
    from pubfetch.engine.assembly import FetchRun

    with FetchRun(FetchConfig().with_changes(javascript=True)) as run:
        ctx = run.context
        resume = ctx.interrupt()
        assert ctx.renderer is None and ctx._made.renderer is None  # a page that wanted JavaScript is not rendered
        resume()
        assert ctx.renderer is not None  # made on first use again (Chromium starts with its first page)


@pytest.mark.slow
@pytest.mark.parametrize("loaded", ["pubfetch.store", "pubfetch.cli.pipeline", "pubfetch.cli.main"])
def test_ctrl_c_while_the_command_starts_is_one_line_and_130(loaded: str, tmp_path: Path) -> None:
    """The signal comes when ``loaded`` has been imported (``-X importtime`` tells each import as it ends): in the middle
    of loading the command's modules, or once they are loaded and the command waits for its ID file."""
    proc = subprocess.Popen([sys.executable, "-X", "importtime", *pubfetch_cmd("-pub-file", "/dev/stdin", "-out")[1:]],
                            env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stderr is not None
    try:
        for line in proc.stderr:
            if line.startswith("import time:") and line.split("|")[-1].strip() == loaded:
                break
        else:
            pytest.fail(f"the command ended before importing {loaded}: status {proc.wait()}")
        os.kill(proc.pid, signal.SIGINT)
        said = [line for line in proc.stderr if not line.startswith("import time:")]
        assert (proc.wait(STOP_CEILING_S), said) == (130, ["pubfetch: error: interrupted\n"])
    finally:
        proc.stdin.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
@pytest.mark.timing
@pytest.mark.skipif(find_chromium() is None, reason="no Chromium found")
def test_ctrl_c_mid_render_kills_the_browser_at_once(tmp_path: Path) -> None:
    """``kill -INT`` while Chromium renders a page that never answers: the browser is killed at once, not after the
    grace a closing renderer gives a page that may still finish (the ceiling is that grace)."""
    rendering = threading.Event()

    def page(request: Request) -> Reply:
        rendering.set()
        return Reply(hold=True)

    with LoopbackServer({"/slow": page}) as site, SyntheticServices(1) as services:
        with running(["-fetch-document-javascript", site.url("/slow"), "--allow-private-addresses"],
                     env_for(services, tmp_path), tmp_path) as proc:
            wait_while_running(proc, rendering.is_set, EVENT_CEILING_S)
            assert proc.poll() is None, proc.communicate()
            signalled = time.monotonic()
            proc.send_signal(signal.SIGINT)
            err = proc.communicate(timeout=STOP_CEILING_S)[1]
            took = time.monotonic() - signalled
    assert_interrupted(proc, err)
    assert took < DEFAULT_KILL_GRACE_MS / 1000, f"stopped {took:.1f} s after the Ctrl-C"


def test_a_ctrl_c_inside_a_weakref_callback_is_handled_after_it() -> None:
    """Raised inside a WeakSet's callback, KeyboardInterrupt would be printed as "Exception ignored" and lost: the
    signal is sent again instead, and comes once the callback has returned."""
    import types

    from pubfetch.interrupts import raise_keyboard_interrupt

    callback = types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename="/usr/lib/python3/_weakrefset.py",
                                                                  co_name="_remove"), f_back=None)
    again = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: again.set())
    try:
        raise_keyboard_interrupt(signal.SIGINT, callback)  # type: ignore[arg-type]
        assert again.wait(EVENT_CEILING_S)
    finally:
        signal.signal(signal.SIGINT, previous)
    with pytest.raises(KeyboardInterrupt):
        raise_keyboard_interrupt(signal.SIGINT, sys._getframe())
