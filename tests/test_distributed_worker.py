"""``pubfetch worker``'s command line: its options, and a bad one refused with one line and status 2 before any
connection."""

from __future__ import annotations

import pytest

from pubfetch.distributed.app import GRACE_S, MIN_GRACE_S, RESULT_BACKEND_ENV
from pubfetch.distributed.worker import main, parser

pytest.importorskip("celery", reason='the worker needs celery (pip install ".[test]")')


def test_options_and_their_defaults() -> None:
    opts = parser().parse_args(["--broker", "redis://127.0.0.1:6379/1", "--db", "p.db"])
    assert (opts.broker, opts.db, opts.rate_db, opts.grace_period, opts.allow_private_addresses, opts.name) == \
        ("redis://127.0.0.1:6379/1", "p.db", None, GRACE_S, False, None)
    assert (opts.pool, opts.concurrency) == ("threads", None)  # two batches at a time, as one process has in flight
    named = parser().parse_args(["--broker", "b", "--db", "d", "--hostname", "w1@%h", "--grace-period", "30"])
    assert (named.name, named.grace_period) == ("w1@%h", 30.0)


@pytest.mark.parametrize(("options", "message"), [
    (["--concurrency", "0"], "pubfetch: error: --concurrency must be at least 1\n"),
    (["--grace-period", "2"], f"pubfetch: error: --grace-period must be at least {MIN_GRACE_S:.0f} s (workers renew "
                              "their batches every quarter of it)\n"),
])  # fmt: skip
def test_a_bad_option_is_one_line_and_status_2(options: list[str], message: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--broker", "redis://127.0.0.1:1/0", "--db", "p.db", *options]) == 2
    assert capsys.readouterr().err == message


def test_a_rabbitmq_queue_without_a_results_redis_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(RESULT_BACKEND_ENV, raising=False)
    assert main(["--broker", "amqp://guest:guest@127.0.0.1:1//", "--db", "p.db"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pubfetch: error: a queue at amqp://127.0.0.1:1// needs a Redis for the job's results")
    assert err.count("\n") == 1 and "guest:guest" not in err


def test_broker_and_database_are_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--db", "p.db"])
    assert info.value.code == 2
    assert "--broker" in capsys.readouterr().err
