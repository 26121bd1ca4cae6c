"""The Celery app workers and submitters share: settings that make a batch survive a lost worker, queues and results
kept apart per cluster by the URL's prefix, and the results' Redis a RabbitMQ queue needs."""

from __future__ import annotations

import pytest

from pubfetch.distributed.app import (
    GRACE_S,
    RESULT_BACKEND_ENV,
    TASK_NAME,
    default_backend,
    is_redis,
    make_app,
    renew_interval,
)
from pubfetch.distributed.tasks import WorkerSettings

pytest.importorskip("celery", reason='the Celery app needs celery (pip install ".[test]")')


@pytest.fixture
def no_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RESULT_BACKEND_ENV, raising=False)


def test_results_go_to_the_brokers_redis_unless_named(no_backend: None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_backend("redis://127.0.0.1:6379/3") == "redis://127.0.0.1:6379/3"
    monkeypatch.setenv(RESULT_BACKEND_ENV, "redis://127.0.0.1:6379/4")
    assert default_backend("amqp://guest:guest@127.0.0.1//") == "redis://127.0.0.1:6379/4"


def test_a_rabbitmq_queue_without_a_results_redis_is_refused_without_its_password(no_backend: None) -> None:
    with pytest.raises(ValueError) as info:
        default_backend("amqp://user:s3cret@127.0.0.1:5672//")
    message = str(info.value)
    assert "s3cret" not in message and "127.0.0.1:5672//" in message
    assert f"set {RESULT_BACKEND_ENV}=redis://host:6379/N" in message


def test_queues_are_told_apart_and_renewed_four_times_a_grace_period() -> None:
    assert is_redis("rediss://h:6380/0") and is_redis("redis://h") and not is_redis("amqp://h//")
    assert renew_interval(60.0) == 15.0


def test_a_batch_is_acknowledged_when_done_and_comes_back_after_the_grace_period(no_backend: None) -> None:
    app = make_app("redis://127.0.0.1:6379/5", grace=20.0)
    conf = app.conf
    assert (conf.task_acks_late, conf.task_reject_on_worker_lost, conf.worker_prefetch_multiplier) == (True, True, 1)
    assert conf.broker_transport_options["visibility_timeout"] == 20.0
    assert conf.broker_heartbeat == 10
    assert conf.accept_content == ["json"]
    assert conf.result_backend == "redis://127.0.0.1:6379/5"
    assert TASK_NAME in app.tasks
    assert conf.pubfetch_worker == WorkerSettings()
    app.close()


def test_a_prefix_names_the_queue_and_the_keys_of_queue_and_results(no_backend: None) -> None:
    worker = WorkerSettings("/tmp/p.db", None, True)
    app = make_app("redis://127.0.0.1:6379/5?prefix=lab:", worker=worker)
    conf = app.conf
    assert conf.broker_url == "redis://127.0.0.1:6379/5"
    assert conf.task_default_queue == "lab:pubfetch"
    assert conf.broker_transport_options["global_keyprefix"] == "lab:"
    assert conf.result_backend_transport_options == {"global_keyprefix": "lab:"}
    assert conf.pubfetch_worker is worker
    app.close()


def test_the_default_grace_period_is_a_minute(no_backend: None) -> None:
    app = make_app("redis://127.0.0.1:6379/5")
    assert app.conf.broker_transport_options["visibility_timeout"] == GRACE_S == 60.0
    assert app.conf.task_default_queue == "celery"  # no prefix: Celery's own queue name
    app.close()
