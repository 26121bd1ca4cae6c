"""A worker's bulk file given by URL (pubfetch/distributed/bulktask.py), without Celery: the task function is called
as a worker calls it. The download goes through the worker's rate limiter and the address guard (a queued URL is
someone else's: a loopback or private host is refused unless the worker allows such addresses), is taken in ranges
and resumed from the bytes a former delivery left, and a URL that is not HTTPS (plain HTTP to another host, a file
URL) is refused before anything is asked."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pubfetch.bulk import sources
from pubfetch.distributed import bulktask
from pubfetch.distributed.tasks import BatchFailed, BatchRefused, WorkerSettings
from support.bulkfiles import medline_set, serve_files
from support.loopback import LoopbackServer


class CountingLimiter:
    """A rate limiter that lets every request go at once and counts them by service key."""

    def __init__(self) -> None:
        self.acquired: list[str] = []

    def acquire(self, key: str) -> float:
        self.acquired.append(key)
        return 0.0

    def penalize(self, key: str, seconds: float) -> None:
        pass


def _task(worker: WorkerSettings) -> Any:
    return SimpleNamespace(app=SimpleNamespace(conf=SimpleNamespace(pubfetch_worker=worker)),
                           request=SimpleNamespace(id="task-1", group="job-1"))


@pytest.fixture
def limiter(monkeypatch: pytest.MonkeyPatch) -> CountingLimiter:
    counting = CountingLimiter()
    monkeypatch.setattr(bulktask, "_rate_limiter", lambda worker: counting)
    monkeypatch.setattr(sources, "RANGE_BYTES", 512)
    return counting


def test_a_url_is_downloaded_through_the_limiter_in_ranges_resumed_and_imported(
        tmp_path: Path, limiter: CountingLimiter) -> None:
    published = tmp_path / "nlm"
    published.mkdir()
    files = medline_set(published)
    import_dir = tmp_path / "imports"
    import_dir.mkdir()
    data = files.baseline.read_bytes()
    (import_dir / (files.baseline.name + ".part")).write_bytes(data[:700])  # a delivery lost part of the way
    worker = WorkerSettings(db=str(tmp_path / "pubs.db"), import_dir=str(import_dir), allow_private_addresses=True)
    ranges: list[tuple[str, str]] = []
    with LoopbackServer() as server:
        serve_files(published, server, ranges)
        url = server.url("/updatefiles/" + files.baseline.name)
        done = bulktask.import_file_task(_task(worker), {"kind": "medline", "url": url, "rank": 26_000_001})
        asked = len(server.requests)
    assert done == {"name": files.baseline.name, "stored": len(files.pmids), "deleted": 0, "unchanged": 0,
                    "skipped": False}
    file_ranges = [r for name, r in ranges if name == files.baseline.name]
    assert file_ranges[0] == "bytes=700-1211"  # resumed from the bytes on disk
    assert len(file_ranges) == -(-(len(data) - 700) // 512)
    assert (import_dir / files.baseline.name).read_bytes() == data
    assert (import_dir / (files.baseline.name + ".md5")).is_file()
    assert len(limiter.acquired) == asked  # every request waited for its turn
    again = bulktask.import_file_task(_task(worker), {"kind": "medline", "url": url, "rank": 26_000_001})
    assert again["skipped"] is True


def test_a_loopback_url_is_refused_by_the_guard_when_the_worker_does_not_allow_private_addresses(
        tmp_path: Path, limiter: CountingLimiter) -> None:
    published = tmp_path / "nlm"
    published.mkdir()
    files = medline_set(published)
    worker = WorkerSettings(db=str(tmp_path / "pubs.db"), import_dir=str(tmp_path / "imports"))
    with LoopbackServer() as server:
        serve_files(published, server, [])
        url = server.url("/updatefiles/" + files.baseline.name)
        with pytest.raises(BatchFailed, match=files.baseline.name):
            bulktask.import_file_task(_task(worker), {"kind": "medline", "url": url, "rank": 26_000_001})
        assert server.requests == []
    assert not (tmp_path / "imports" / files.baseline.name).exists()


@pytest.mark.parametrize("url", ["http://ftp.ncbi.nlm.nih.gov/pubmed/baseline/pubmed26n0001.xml.gz",
                                 "file:///etc/passwd", "ftp://ftp.ncbi.nlm.nih.gov/pubmed/baseline/pubmed26n0001.xml.gz"])
def test_a_url_that_is_not_https_is_refused_before_anything_is_asked(
        tmp_path: Path, limiter: CountingLimiter, url: str) -> None:
    worker = WorkerSettings(db=str(tmp_path / "pubs.db"), import_dir=str(tmp_path / "imports"),
                            allow_private_addresses=True)
    with pytest.raises(BatchRefused, match="HTTPS only"):
        bulktask.import_file_task(_task(worker), {"kind": "medline", "url": url, "rank": 1})
    assert limiter.acquired == []
    assert not (tmp_path / "pubs.db").exists()
