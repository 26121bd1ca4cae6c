"""Shared test fixtures."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:  # the helpers are imported where used, so this file also works copied alone (tests/test_conftest.py)
    from support.citation_graph import CitingServices
    from support.cli import Cli
    from support.loopback import LoopbackServer
    from support.replay import CorpusReplay
    from support.replayrun import CorpusPageFetches
    from support.synthetic import SyntheticServices

# Property tests check what the code does, never how fast: Hypothesis's default 200 ms deadline per example and its
# "too slow" health check fail (or report "unreliable test timings") when a loaded machine is slow. Tests that set
# their own @settings inherit these for what they leave out.
# The suite's processes (both pytest-xdist workers, every `python -m pubfetch`, worker and page-reader process it
# starts) import the same modules: compiled once into the checkout's __pycache__ (ignored by git), not again in each,
# also where the environment asks for no bytecode files (PYTHONDONTWRITEBYTECODE). Without the cache each worker's
# collection alone costs 22 CPU-seconds, with it 6 (pytest's rewritten test modules are cached there too).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

settings.register_profile("pubfetch", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("pubfetch")

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


@pytest.fixture(autouse=True, scope="session")
def _private_rate_limits(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Library calls share rate limits through a file (``$PUBFETCH_RATE_DB``); the suite's stays out of the user's
    cache. Tests that need their own set it with monkeypatch."""
    previous = os.environ.get("PUBFETCH_RATE_DB")
    os.environ["PUBFETCH_RATE_DB"] = str(tmp_path_factory.mktemp("rate-limits") / "rates.sqlite")
    yield
    if previous is None:
        os.environ.pop("PUBFETCH_RATE_DB", None)
    else:
        os.environ["PUBFETCH_RATE_DB"] = previous


#: The scholarly APIs' switches: they have no synthetic service, so a run of the suite that reads its settings from
#: the environment (the command line in this process, a queued job's settings) leaves them off; their own tests turn
#: them on (tests/test_chain_scholarly.py).
SCHOLARLY_SWITCHES = ("PUBFETCH_ASK_CROSSREF", "PUBFETCH_ASK_OPENALEX", "PUBFETCH_ASK_DATACITE", "PUBFETCH_ASK_BIORXIV")


@pytest.fixture(autouse=True, scope="session")
def _scholarly_apis_off() -> Iterator[None]:
    previous = {name: os.environ.get(name) for name in SCHOLARLY_SWITCHES}
    os.environ.update({name: "false" for name in SCHOLARLY_SWITCHES})
    yield
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


CORPUS_MISSING = f"recorded-response corpus not found at {CORPUS} (clone ../shared beside the repository to run these)"


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The recorded-response corpus beside the checkout; tests using it skip when it is absent."""
    if not (CORPUS / "manifest.jsonl").is_file():
        pytest.skip(CORPUS_MISSING)
    return CORPUS


#: What a run may lack, as the skip reasons of the tests that need it begin: the corpus, and each of the machine's
#: services the store, rate-limit and cluster tests use.
MISSING = (CORPUS_MISSING, "PostgreSQL not reachable at ", "Redis not reachable at ", "RabbitMQ not reachable at ")


def _skip_reason(report: pytest.TestReport) -> str:
    """A skipped test's reason (a ``(path, line, "Skipped: reason")`` tuple, also from a pytest-xdist worker)."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line for each thing the run lacked (the corpus, a service of the machine) saying how many tests were
    skipped for it and why, printed even with -q (which hides skip reasons)."""
    reasons = [_skip_reason(r) for r in terminalreporter.stats.get("skipped", [])]
    for missing in MISSING:
        found = [reason for reason in reasons if reason.startswith(missing)]
        if found:
            terminalreporter.write_line(f"{len(found)} tests skipped: {found[0]}")


@pytest.fixture(scope="module")
def replay_server(corpus_dir: Path) -> Iterator[tuple[CorpusReplay, LoopbackServer]]:
    """``(replay, server)``: the corpus replayed by a proxy on 127.0.0.1 for every real service, one per test module
    (tests/support/replayrun.py has the run that goes through it)."""
    from support.replayrun import replay_proxy

    with replay_proxy(corpus_dir) as replaying:
        yield replaying


@pytest.fixture(scope="session")
def corpus_page_fetches(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[CorpusPageFetches]:
    """The corpus's publisher pages fetched once per run, through a proxy of its own (see
    :class:`support.replayrun.CorpusPageFetches`): for the tests that only read what the pages gave. The pytest-xdist
    workers of one run share the DOIs' publications through a file in the run's temporary directory (the parent of
    each worker's own)."""
    from support.replayrun import CorpusPageFetches, replay_proxy

    shared = None
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "corpus-page-fetches.pickle"
    with replay_proxy(corpus_dir) as (replay, server):
        yield CorpusPageFetches(replay, server, shared)


@pytest.fixture(scope="session")
def corpus_manifest(corpus_dir: Path) -> list[dict]:
    with open(corpus_dir / "manifest.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(params=["small documents whole", "every document as parsed"])
def as_parsed_from(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The XML parsers read bytes whole below a size and part by part as parsed above it: a test using this runs
    both readings on its small documents."""
    if request.param == "every document as parsed":
        from pubfetch.extract import xmlsafe

        monkeypatch.setattr(xmlsafe, "READ_AS_PARSED_FROM", 0)


# --- the machine's PostgreSQL server (tests of the PostgreSQL store skip with one message when it is unreachable) ---

POSTGRES_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


@pytest.fixture(scope="session")
def pg_database() -> object:
    """A database of this test session's own on the machine's PostgreSQL, dropped at the end; its URL."""
    import os
    import uuid

    try:
        import psycopg
    except ImportError:
        pytest.skip('PostgreSQL tests need psycopg (pip install ".[test]")')
    try:
        admin = psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=5)
    except psycopg.Error as e:
        pytest.skip(f"PostgreSQL not reachable at 127.0.0.1:5432: {str(e).strip().splitlines()[0]}")
    from support.pgdb import own_database

    # the pytest-xdist worker (gw0, gw1 ...) names whose it is; the process id and a random token keep it apart from
    # the same worker's of a second run on the machine
    name = f"pubfetch_test_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with own_database(admin, name) as url:
        yield url


@pytest.fixture
def pg_url(pg_database: str) -> str:
    """The session's PostgreSQL database emptied of pubfetch's tables, ready for -db-init."""
    import psycopg

    with psycopg.connect(pg_database, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS meta, publications, publication_ids, webpages, docs, citation_edges, "
                     "saved_searches, bulk_files, pubmed_versions")
    return pg_database


@pytest.fixture(params=["sqlite", "postgresql"])
def either_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database target for a test run on both engines: a SQLite file not made yet, then the session's PostgreSQL
    database emptied of pubfetch's tables (``pg_url``)."""
    if request.param == "sqlite":
        return str(tmp_path / "pubs.db")
    return str(request.getfixturevalue("pg_url"))


# --- the machine's Redis (DB 13, keys under a prefix of this test's own, deleted afterwards) ---

REDIS_TEST_URL = "redis://127.0.0.1:6379/13"


@pytest.fixture
def redis_url() -> object:
    """``redis://127.0.0.1:6379/13?prefix=<unique>:`` for pubfetch's Redis users; skips when Redis is unreachable."""
    import uuid

    try:
        import redis
    except ImportError:
        pytest.skip('Redis tests need the redis driver (pip install ".[test]")')
    client = redis.Redis.from_url(REDIS_TEST_URL, socket_connect_timeout=5)
    try:
        client.ping()
    except redis.RedisError as e:
        pytest.skip(f"Redis not reachable at {REDIS_TEST_URL.split('/')[2]}: {e}")
    prefix = f"pubfetch-test-{uuid.uuid4().hex[:10]}:"
    try:
        yield f"{REDIS_TEST_URL}?prefix={prefix}"
    finally:
        keys = list(client.scan_iter(match=prefix + "*"))
        if keys:
            client.delete(*keys)
        client.close()


# --- pubfetch as a user runs it: the command line, and the services it is pointed at ---


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """``cli("-pub", "1", "-out")`` runs the command line in this process: ``(code, out, err)``, never a traceback."""
    from support.cli import Cli

    return Cli(capsys)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """``tmp_path``, with pubfetch's rate limits in a file there and no user configuration file, but no services."""
    from support.synthetic import use_services

    use_services(monkeypatch, tmp_path)
    return tmp_path


@pytest.fixture
def citation_graph(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[CitingServices]:
    """The synthetic services of :func:`support.citation_graph.small_graph` (papers citing one another) on 127.0.0.1,
    which pubfetch is pointed at as with :func:`services`."""
    from support.citation_graph import small_graph
    from support.synthetic import use_services

    with small_graph() as graph:
        use_services(monkeypatch, tmp_path, graph)
        yield graph


@pytest.fixture
def services(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
             tmp_path: Path) -> Iterator[SyntheticServices]:
    """Synthetic Europe PMC, E-utilities, doi.org and Unpaywall on 127.0.0.1, which pubfetch (library and command
    line) is pointed at through the environment, with the private files of :func:`env`.

    ``@pytest.mark.services(n)`` gives them ``n`` publications (3 when unmarked); ``emails=False`` leaves pubfetch
    without the e-mail addresses NCBI and Unpaywall ask for (also when the machine's environment has them).
    """
    from support.synthetic import SyntheticServices, use_services

    marker = request.node.get_closest_marker("services")
    count = marker.args[0] if marker and marker.args else 3
    emails = marker.kwargs.get("emails", True) if marker else True
    with SyntheticServices(count) as synthetic:
        use_services(monkeypatch, tmp_path, synthetic, emails=emails)
        yield synthetic


def pytest_configure(config: pytest.Config) -> None:
    """In the pytest-xdist controller, before it starts the workers: the compiled test modules (their assertions
    rewritten) and pubfetch's written once, not by both workers at once on a fresh clone (:mod:`support.bytecode`)."""
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    try:
        from support.bytecode import write_all
    except ImportError:
        return  # this file copied alone (tests/test_conftest.py)
    write_all(config, Path(__file__).resolve().parent)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The collected tests, the imported modules and what they hold live as long as the test process: frozen, the
    full garbage collections that each in-process command line run ends with (pubfetch/cli/main.py) and Python's own
    no longer walk them (0.13 s a run on a loaded machine: test_cli_filters.py took 25 s, frozen 6 s)."""
    import gc

    gc.collect()  # what collecting left over is freed, not kept for good
    gc.freeze()
