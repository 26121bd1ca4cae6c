"""``fetch_many(ids, db=..., queue=...)``: every option either does through the workers what it does in this process,
or is refused at once with a message saying why (the settings that belong to each worker, live objects, what workers
always do their own way, a database the workers cannot reach)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import pubfetch
from pubfetch.config import JOB_SETTINGS, WORKER_SETTINGS, Endpoints, FetchConfig, HttpSettings, RunSettings
from pubfetch.config.proxies import EnvironmentProxies
from pubfetch.fetcher import BatchSummary
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import InvalidId
from pubfetch.store import init_store, open_store
from support.fetchrun import run_context
from support.procs import stop_process_groups
from support.pubfetch_processes import service_env, start_worker
from support.synthetic import Article, SyntheticServices
from support.waits import within

#: A value for each setting a worker takes from its own options and configuration, never from a job.
WORKER_OWNED: dict[str, object] = {
    "endpoints": Endpoints(), "http": HttpSettings(), "run": RunSettings(),
    **{name: "http://mirror.example.org/" for name in ("europepmc", "europepmc_annotations", "eutils", "pubmed", "doi",
                                                       "unpaywall", "crossref", "openalex", "datacite", "biorxiv")},
    "ncbi_api_key": "key", "ncbi_tool": "mytool", "ncbi_email": "me@example.org",
    "crossref_mailto": "me@example.org", "datacite_mailto": "me@example.org", "openalex_api_key": "key",
    "rate_windows": {"europepmc": "5/s"},
    "threads": 2, "allow_private_addresses": True,
    "per_host_connections": 2, "chromium": "/usr/bin/chromium", "rate_limits": False, "rate_db": "rates.sqlite",
    "host_connections": {"ebi.ac.uk": 2}, "unlimited_hosts": frozenset(), "max_bytes": 1000, "max_compression_ratio": 10.0,
    "compression_ratio_floor": 1000, "total_timeout_ms": 1000, "max_redirects": 1, "timeout_retries": 0,
    "busy_retries": 0, "retry_after_cap_s": 1.0, "busy_backoff_s": 0.5, "proxies": {"https": "http://proxy:3128"},
    "ca_bundle": "/etc/ca.pem", "extra_headers": {"X-A": "b"}, "page_time_limit": 5.0, "page_memory_limit": 1000,
    "import_workers": 2, "import_chunk": 100, "import_download_dir": "/data/downloads", "import_dir": "/data/pubmed",
    "elink_batch": 100, "environment_proxies": EnvironmentProxies({"https": "http://proxy:3128"}),
}
#: No broker listens here: a refused call must not get as far as trying it.
NO_BROKER = "redis://127.0.0.1:1/0"


def test_every_worker_setting_is_named_here() -> None:
    assert set(WORKER_OWNED) == set(WORKER_SETTINGS)


@pytest.mark.parametrize("name", sorted(WORKER_OWNED))
def test_a_setting_of_the_workers_is_refused(name: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=f"cannot set {name}: each worker uses its own"):
        pubfetch.fetch_many(["31114920"], db=str(tmp_path / "pubs.db"), queue=NO_BROKER,
                            **{name: WORKER_OWNED[name]})  # type: ignore[misc]


#: The leaf settings among them (the records ``endpoints``, ``http`` and ``run`` are not settings of a config's own).
WORKER_LEAVES = sorted(name for name in WORKER_OWNED if name not in ("endpoints", "http", "run"))


@pytest.mark.parametrize("name", [*WORKER_LEAVES, "user_agent"])
def test_a_setting_of_the_workers_chosen_in_config_is_refused_not_dropped(name: str, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # this process's own configuration is the defaults (none of the machine's variables or config file), so that the
    # value below is a choice of the call
    for variable in [v for v in os.environ if v.startswith(("PUBFETCH_", "NCBI_"))]:
        monkeypatch.delenv(variable)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    value = WORKER_OWNED.get(name, "mine")
    config = FetchConfig.from_env().with_changes(**{name: value})
    with pytest.raises(ValueError, match=f"cannot use config's {name}: each worker uses its own"):
        pubfetch.fetch_many(["31114920"], db=str(tmp_path / "pubs.db"), queue=NO_BROKER, config=config)


def test_config_and_options_reach_the_job_submitted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a queued call hands to the submission: the batch size (IDs per task), the job settings and the fetching
    thresholds, from ``config`` or the keyword options; this process's own worker settings in ``config`` are no
    choice, so no error."""
    import pubfetch.distributed.submit as submit

    sent: list[dict[str, object]] = []
    monkeypatch.setattr(submit, "fetch_many_queued", lambda ids, db, queue, **kw: sent.append(kw) or iter(()))
    db = str(tmp_path / "pubs.db")
    own = FetchConfig.from_env()
    pubfetch.fetch_many(["31114920"], db=db, queue=NO_BROKER,
                        config=own.with_changes(batch_size=3, efetch_batch=7, max_links=1))
    pubfetch.fetch_many(["31114920"], db=db, queue=NO_BROKER, config=own, batch_size=5, linger_ms=9)
    pubfetch.fetch_many(["31114920"], db=db, queue=NO_BROKER)
    pubfetch.fetch_many(["31114920"], db=db, queue=NO_BROKER, title_min_length=5, retry_limit=0)
    assert [kw["batch_size"] for kw in sent] == [3, 5, None, None]  # None: the queue's default
    thresholds = sent[3]["args"]
    assert isinstance(thresholds, FetcherArgs) and (thresholds.title_min_length, thresholds.retry_limit) == (5, 0)
    first, second, third = (kw["settings"] for kw in sent[:3])
    assert isinstance(first, dict) and isinstance(second, dict) and isinstance(third, dict)
    assert (first["efetch_batch"], first["max_links"]) == (7, 1)
    assert second["linger_ms"] == 9
    assert set(third) == set(JOB_SETTINGS)


def test_a_context_a_database_the_workers_cannot_reach_or_their_own_ways_are_refused(tmp_path: Path) -> None:
    with run_context(FetchConfig()) as ctx, pytest.raises(ValueError, match="cannot use a context"):
        pubfetch.fetch_many(["31114920"], db=str(tmp_path / "pubs.db"), queue=NO_BROKER, context=ctx)
    with pytest.raises(ValueError, match="needs db= a database URL or path the workers can reach"):
        pubfetch.fetch_many(["31114920"], queue=NO_BROKER)
    with init_store(str(tmp_path / "open.db")) as store, pytest.raises(ValueError, match="needs db="):
        pubfetch.fetch_many(["31114920"], db=store, queue=NO_BROKER)
    with pytest.raises(ValueError, match="cannot set the fetching parameters oadoi_email, user_agent: each worker"):
        pubfetch.fetch_many(["31114920"], db=str(tmp_path / "pubs.db"), queue=NO_BROKER,
                            args=FetcherArgs(oadoi_email="me@example.org", user_agent="mine"))
    with pytest.raises(ValueError, match="cannot set the fetching parameters user_agent: each worker"):
        pubfetch.fetch_many(["31114920"], db=str(tmp_path / "pubs.db"), queue=NO_BROKER, user_agent="mine")
    for option in ("use_stored", "retry_exceptions"):
        with pytest.raises(ValueError, match="always uses the entries in the database and retries"):
            pubfetch.fetch_many(["31114920"], db=str(tmp_path / "pubs.db"), queue=NO_BROKER,
                                **{option: False})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="errors must be 'skip' or 'raise'"):
        pubfetch.fetch_many(["31114920"], db=str(tmp_path / "pubs.db"), queue=NO_BROKER, errors="ignore")
    with pytest.raises(InvalidId):  # errors="raise": an invalid ID before anything is sent
        list(pubfetch.fetch_many(["not-an-id"], db=str(tmp_path / "pubs.db"), queue=NO_BROKER, errors="raise"))


@pytest.mark.slow
def test_the_options_of_a_queued_fetch_do_what_they_do_in_this_process(tmp_path: Path, redis_url: str) -> None:
    db = str(tmp_path / "pubs.db")
    init_store(db).close()
    with SyntheticServices(6) as services:
        worker = start_worker(redis_url, db, service_env(services), tmp_path / "worker.log")
        try:
            done: list[int] = []
            summary = BatchSummary()
            pmids, later = services.pmids()[:4], services.pmids()[4:]
            # parts: title and IDs only; args: a title is usable from 10,000 characters (so none is final);
            # batch_size: two IDs per task (so two searches); max_links, a job setting, travels too
            pubs = within(300, lambda: list(pubfetch.fetch_many(
                [*pmids, "not-an-id"], db=db, queue=redis_url, parts=["title", "pmid", "pmcid", "doi"],
                args=FetcherArgs(title_min_length=10_000), progress=lambda n, pub: done.append(n), summary=summary,
                batch_size=2, max_links=0)))
            asked = services.counts.copy()
            # the worker's own line for each batch it finished (pubfetch.distributed.tasks): how many IDs each had
            tasks = re.findall(r"batch \S+ of (\d+) done", (tmp_path / "worker.log").read_text(errors="replace"))
            # the entries in the database are used (their titles are final under the default fetching parameters):
            # nothing is asked again
            within(300, lambda: list(pubfetch.fetch_many(pmids, db=db, queue=redis_url, parts=["title"])))
            asked_again = services.counts.copy()
            # config: a job setting of it (one ID per search request) travels as the keyword options do
            searches_before = len(search_queries(services))
            within(300, lambda: list(pubfetch.fetch_many(
                later, db=db, queue=redis_url, parts=["title"],
                config=FetchConfig.from_env().with_changes(europepmc_batch=1))))
            later_searches = search_queries(services)[searches_before:]
        finally:
            stop_process_groups([worker])
    assert [pub.pmid.content for pub in pubs] == pmids  # in input order, the invalid ID skipped (errors="skip")
    assert done == [1, 2, 3, 4]
    assert (summary.total, summary.fetched, summary.final) == (4, 4, 0)  # none final: the args travelled
    assert tasks == ["2", "2"]  # two tasks of two IDs
    # each PMID asked of the search once: one request per task, or one for both when the worker ran the two tasks
    # in one run (docs/throughput.md: one batch of a step serves every batch in flight)
    first_searches = search_queries(services)[:asked["europepmc_search"]]
    assert sorted(pmid for query in first_searches for pmid in query) == sorted(pmids)
    assert asked["europepmc_search"] in (1, 2)
    assert asked["annotations"] == 0  # EFO and GO terms are not among the parts asked for
    assert asked_again == asked
    with open_store(db, readonly=True) as store:
        stored = store.get_publication(pmids[0])
    assert stored is not None and stored.title.content == Article(0).title
    # the first job's searches each named both IDs of a task (europepmc_batch's default is 200); this one's one each
    assert sorted(pmid for query in later_searches for pmid in query) == sorted(later)
    assert [len(query) for query in later_searches] == [1, 1]


def search_queries(services: SyntheticServices) -> list[list[str]]:
    """The PMIDs each Europe PMC search named, in the order the server received them."""
    return [re.findall(r"EXT_ID:(\d+)", request.param("query") or "") for request in services.server.requests
            if request.path.endswith("/search")]
