"""The task a worker runs: a checked message's batch fetched into the worker's own database, its counts returned as
JSON; a batch no delivery could fetch (bad message, no or another database) refused with one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pubfetch.distributed.app import RESULT_BACKEND_ENV, TASK_NAME, make_app
from pubfetch.distributed.message import VERSION, BatchMessage
from pubfetch.distributed.tasks import BatchRefused, WorkerSettings, cancelled_key
from pubfetch.ids import PublicationIds
from pubfetch.store import init_db, open_store
from support.synthetic import Article, SyntheticServices

pytest.importorskip("celery", reason='the worker task needs celery (pip install ".[test]")')


def run_task(worker: WorkerSettings, message: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    """The task run in this process, as a worker runs it (no job: no results' Redis is asked)."""
    monkeypatch.delenv(RESULT_BACKEND_ENV, raising=False)
    app = make_app("redis://127.0.0.1:1/0", worker=worker)
    try:
        return app.tasks[TASK_NAME].apply(args=(message,))
    finally:
        app.close()


def test_the_cancelled_key_names_the_job() -> None:
    assert cancelled_key("abc") == "pubfetch-job:abc:cancelled"


@pytest.mark.parametrize(("message", "reason"), [
    ({"v": VERSION, "ids": [["1", "", ""]], "db": None, "useragent": "x"},
     "message refused: message field(s) useragent not accepted by workers"),
    ({"v": VERSION, "ids": [["1", "", ""]], "db": "postgresql://h/other"},
     "the job names another database than this worker's --db"),
])  # fmt: skip
def test_a_batch_no_delivery_could_fetch_is_refused(message: dict[str, Any], reason: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_task(WorkerSettings(str(tmp_path / "p.db")), message, monkeypatch)
    assert result.state == "FAILURE" and isinstance(result.result, BatchRefused)
    assert str(result.result).startswith(reason)


def test_a_worker_without_a_database_refuses_every_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_task(WorkerSettings(), BatchMessage([PublicationIds("1")]).encode(), monkeypatch)
    assert isinstance(result.result, BatchRefused) and str(result.result) == "this worker has no --db"


def test_a_worker_whose_database_is_missing_refuses_the_batch(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_task(WorkerSettings(str(tmp_path / "gone.db")), BatchMessage([PublicationIds("1")]).encode(),
                      monkeypatch)
    assert isinstance(result.result, BatchRefused)
    assert str(result.result).startswith("the worker's database cannot be opened: ")


@pytest.mark.services(3)
def test_a_batch_is_fetched_into_the_workers_database(services: SyntheticServices, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "worker.db"
    init_db(db).close()
    worker = WorkerSettings(str(db), str(tmp_path / "rates.sqlite"), allow_private_addresses=True)
    message = BatchMessage([PublicationIds(Article(i).pmid) for i in range(3)], str(db), {"quick": True},
                           ["title", "abstract"]).encode()
    result = run_task(worker, message, monkeypatch)
    assert result.state == "SUCCESS", result.result
    assert (result.result["total"], result.result["fetched"]) == (3, 3)
    with open_store(db, readonly=True) as store:
        stored = store.get_publication(PublicationIds(Article(2).pmid))
    assert stored is not None and stored.title.content == Article(2).title
    assert stored.fulltext.is_empty()  # only the parts the job asked for


@pytest.mark.services(12)
def test_a_task_walks_its_ids_in_batches(services: SyntheticServices, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A task of many IDs (up to MAX_IDS_PER_TASK) is walked through the chain ``WALK`` at a time, two walks in flight,
    as a local run walks its batches: the first publication is stored before the batch services have been asked about
    more than two walks' IDs. Walked as one batch (as the red team's task of 200,000 IDs was: 1.5 GB of worker RSS),
    every ID is asked first and held until the end."""
    import pubfetch.distributed.tasks as tasks

    monkeypatch.setattr(tasks, "WALK", 3)
    db = tmp_path / "worker.db"
    init_db(db).close()
    with open_store(db, readonly=True) as opened:
        store_class = type(opened)
    put = store_class.put_publication
    asked_at_first_put: list[int] = []

    def noting_put(self: Any, pub: Any) -> Any:
        if not asked_at_first_put:
            asked_at_first_put.append(len(services.ids_asked.get("europepmc_search", {})))
        return put(self, pub)

    monkeypatch.setattr(store_class, "put_publication", noting_put)
    worker = WorkerSettings(str(db), str(tmp_path / "rates.sqlite"), allow_private_addresses=True)
    message = BatchMessage([PublicationIds(Article(i).pmid) for i in range(12)], str(db), {"quick": True},
                           ["title", "abstract"]).encode()
    result = run_task(worker, message, monkeypatch)
    assert result.state == "SUCCESS", result.result
    assert (result.result["total"], result.result["fetched"]) == (12, 12)
    assert len(services.ids_asked["europepmc_search"]) == 12
    assert asked_at_first_put and 1 <= asked_at_first_put[0] <= 2 * 3, asked_at_first_put


@pytest.mark.services(3)
def test_a_batch_waits_for_the_results_redis_through_an_outage(services: SyntheticServices, tmp_path: Path,
                                                               redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """The results' Redis (the job's cancel flag and retry list) is away when a batch starts, as in a Redis restart
    while a worker holds prefetched batches: the batch waits for it (one warning, then one when it answers again)
    and is fetched, instead of failing with redis-py's ConnectionError."""
    import logging
    import threading
    from types import SimpleNamespace

    from pubfetch.distributed.tasks import fetch_batch
    from support.tcpcut import CuttableForwarder
    from support.waits import wait_until

    caplog.set_level(logging.WARNING, logger="pubfetch.net.ratelimit_redis")
    db = tmp_path / "worker.db"
    init_db(db).close()
    worker = WorkerSettings(str(db), str(tmp_path / "rates.sqlite"), allow_private_addresses=True)
    message = BatchMessage([PublicationIds(Article(i).pmid) for i in range(3)], str(db), {"quick": True},
                           ["title", "abstract"], batches=1).encode()
    outcome: list[Any] = []
    with CuttableForwarder(6379) as forwarder:
        conf = SimpleNamespace(pubfetch_worker=worker, result_expires=600,
                               result_backend=redis_url.replace("127.0.0.1:6379", f"127.0.0.1:{forwarder.port}"),
                               result_backend_transport_options={"global_keyprefix": redis_url.split("prefix=")[1]})
        task = SimpleNamespace(request=SimpleNamespace(id="t1", group="job-outage", hostname="w@h"),
                               app=SimpleNamespace(conf=conf))
        forwarder.cut()
        batch = threading.Thread(target=lambda: outcome.append(fetch_batch(task, message)))
        batch.start()
        wait_until(lambda: "does not answer" in caplog.text or not batch.is_alive(), 60, "the batch to meet the outage")
        assert batch.is_alive() and services.counts.total() == 0  # waiting, not failed; nothing asked yet
        forwarder.restore()
        batch.join(120)
    assert len(outcome) == 1 and (outcome[0]["total"], outcome[0]["fetched"]) == (3, 3)
    assert caplog.text.count("the results' Redis at ") == 2 and "answers again" in caplog.text
