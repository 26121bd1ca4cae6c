"""Tests for pubfetch.extract.pdf: hand-built PDFs for each feature, and the real PDFs of ../shared/corpus."""

from __future__ import annotations

import functools
import os
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from pubfetch.extract import pdf
from pubfetch.extract.pdf import (
    PdfContent,
    extract_pdf,
    extract_pdf_in_process,
    extract_with_pdfium,
    extract_with_pdfminer,
    looks_like_pdf,
    parse_xmp,
)
from support.pdf_workers import crashing_worker, hungry_worker, raising_worker, slow_worker
from support.pdfs import INFO, XMP, make_pdf
from support.procs import children_supported, descendants, process_gone

# ---------------------------------------------------------------------------------------------------------------------
# Hand-built PDFs
# ---------------------------------------------------------------------------------------------------------------------


def test_info_dictionary() -> None:
    result = extract_pdf_in_process(make_pdf(["Hello from the only page"], info=INFO))
    assert result.error_kind is None and result.error is None
    assert result.title == "Ünïcode title – UTF-16"
    assert result.keywords == ["a", "b", "c", "d"]
    assert result.subject == "An abstract & more — PDFDocEncoding"
    assert result.text == "Hello from the only page"
    assert result.pages == 1
    assert (result.xmp_title, result.xmp_subjects, result.xmp_description) == ("", [], "")


def test_xmp_dublin_core() -> None:
    result = extract_pdf_in_process(make_pdf(["XMP page"], xmp=XMP))
    assert result.error_kind is None
    assert result.xmp_title == "An XMP title with markup"
    assert result.xmp_subjects == ["Genomics", "Proteomics"]
    assert result.xmp_description == "An abstract & more"
    assert (result.title, result.keywords, result.subject) == ("", [], "")


def test_xmp_entities_are_not_resolved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    packet = (
        f'<!DOCTYPE x [<!ENTITY leak SYSTEM "file://{secret}">]>'
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/">'
        '<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Title &leak;</rdf:li></rdf:Alt></dc:title>'
        "<dc:subject><rdf:Bag><rdf:li>&leak;</rdf:li></rdf:Bag></dc:subject>"
        "</rdf:Description></rdf:RDF></x:xmpmeta>"
    ).encode()
    title, subjects, description = parse_xmp(packet)
    assert title == "Title"
    assert subjects == []
    assert description == ""


def test_xmp_garbage_gives_nothing() -> None:
    assert parse_xmp(b"\x00\x01 not xml <<<") == ("", [], "")
    result = extract_pdf_in_process(make_pdf(["Still has text"], xmp=b"<x:xmpmeta><broken"))
    assert result.text == "Still has text"
    assert result.xmp_title == ""


def test_encrypted_with_empty_user_password_is_read() -> None:
    data = make_pdf(["Secret page text"], info=INFO, xmp=XMP, user_password=b"")
    assert b"Secret page text" not in data  # really encrypted
    result = extract_pdf_in_process(data)
    assert result.error_kind is None
    assert result.text == "Secret page text"
    assert result.title == "Ünïcode title – UTF-16"
    assert result.keywords == ["a", "b", "c", "d"]
    assert result.xmp_title == "An XMP title with markup"


def test_encrypted_with_password_is_classified() -> None:
    result = extract_pdf_in_process(make_pdf(["Secret"], info=INFO, user_password=b"open sesame"))
    assert result.error_kind == "encrypted"
    assert result.error
    assert result.text == "" and result.title == ""


def test_page_limit() -> None:
    data = make_pdf(["Alpha page one", "Bravo page two", "Charlie page three"])
    full = extract_pdf_in_process(data)
    assert full.text == "Alpha page one\n\nBravo page two\n\nCharlie page three"
    assert full.pages == 3
    limited = extract_pdf_in_process(data, max_pages=1)
    assert limited.text == "Alpha page one"
    assert limited.pages == 3
    assert limited.error_kind is None
    unlimited = extract_pdf_in_process(data, max_pages=0)
    assert unlimited.text == full.text


def test_truncated_pdf_is_broken() -> None:
    data = make_pdf(["Alpha page one", "Bravo page two"], info=INFO)
    result = extract_pdf_in_process(data[: len(data) // 2])
    assert result.error_kind == "broken"
    assert result.error


def test_garbage_after_header_is_broken() -> None:
    data = b"%PDF-1.7\n" + random.Random(1).randbytes(4000)
    assert extract_pdf_in_process(data).error_kind == "broken"


def test_random_bytes_are_not_pdf() -> None:
    data = random.Random(2).randbytes(5000)
    assert not data.lstrip().startswith(b"%PDF")
    result = extract_pdf_in_process(data)
    assert result.error_kind == "not_pdf"
    assert extract_pdf(data).error_kind == "not_pdf"


def test_sniffing() -> None:
    assert looks_like_pdf(b"%PDF-1.4\n")
    assert looks_like_pdf(b"\xef\xbb\xbf \r\n%PDF-1.4")
    assert looks_like_pdf(b"\n" * 1000 + b"%PDF-1.4")
    assert not looks_like_pdf(b"\n" * 1021 + b"%PDF-1.4")
    assert not looks_like_pdf(b"<html>%PDF-1.4</html>")
    assert not looks_like_pdf(b"")


def test_mutated_pdfs_never_raise() -> None:
    """Bit flips anywhere in a small PDF give a classified result, never an exception."""
    original = make_pdf(["Alpha page one", "Bravo page two"], info=INFO, xmp=XMP)
    rng = random.Random(3)
    for _ in range(60):
        data = bytearray(original)
        for _ in range(rng.randint(1, 20)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        result = extract_pdf_in_process(bytes(data))
        assert isinstance(result, PdfContent)
        assert result.error_kind in (None, "not_pdf", "broken", "encrypted")


# ---------------------------------------------------------------------------------------------------------------------
# The worker process. The workers injected into extract_pdf are in tests/support/pdf_workers.py (the worker process imports
# that light module).
# ---------------------------------------------------------------------------------------------------------------------


def test_worker_returns_extraction() -> None:
    data = make_pdf(["Alpha page one", "Bravo page two"], info=INFO, xmp=XMP)
    assert extract_pdf(data) == extract_pdf_in_process(data)
    assert extract_pdf(data, max_pages=1).text == "Alpha page one"


def test_timeout_kills_worker(tmp_path: Path) -> None:
    # the first extraction starts the forkserver (importing pdfminer.six and lxml), which would count against the
    # time limit below and could use it all up on a loaded machine: start it beforehand
    assert extract_pdf(make_pdf(["Before the timeout"])).text == "Before the timeout"
    pid_file = tmp_path / "worker.pid"
    result = extract_pdf(b"%PDF-1.4\n" + str(pid_file).encode(), time_limit=3.0, worker=slow_worker)
    assert result.error_kind == "timeout"
    assert result.error == "PDF extraction exceeded the time limit of 3 s"
    pid = int(pid_file.read_text())  # the slow worker really ran
    assert pid != os.getpid()
    assert process_gone(pid), f"worker {pid} still alive after the timeout"
    # the next extraction works as usual
    assert extract_pdf(make_pdf(["After the kill"])).text == "After the kill"


def test_crashing_worker_is_broken() -> None:
    result = extract_pdf(b"%PDF-1.4\n", worker=crashing_worker)
    assert result.error_kind == "broken"
    assert result.error == "PDF worker died without a result (exit code 7)"


def test_raising_worker_is_broken() -> None:
    result = extract_pdf(b"%PDF-1.4\n", worker=raising_worker)
    assert result.error_kind == "broken"
    assert result.error == "RuntimeError: worker bug"


def test_too_large_without_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_worker(*args: object) -> PdfContent:
        raise AssertionError("a worker was started")

    monkeypatch.setattr(pdf, "_extract_isolated", no_worker)
    result = extract_pdf(make_pdf(["x"]), max_bytes=100)
    assert result.error_kind == "too_large"
    assert extract_pdf(b"<!DOCTYPE html><html></html>").error_kind == "not_pdf"


# ---------------------------------------------------------------------------------------------------------------------
# Worker processes reused from file to file (pdf_workers, as a fetch run's Context holds them)
# ---------------------------------------------------------------------------------------------------------------------


def _worker_pid(workers: pdf.WorkerPool) -> int:
    """The pid of the process that runs the pool's next job (a job of its own: os.getpid in the worker, under the
    memory cap of extract_pdf's jobs, since a worker serves jobs of one cap)."""
    outcome = workers.run(os.getpid, time_limit=60, memory_limit=pdf.DEFAULT_MEMORY_LIMIT)
    assert outcome.kind == "ok"
    return outcome.value


def test_workers_are_reused_across_files() -> None:
    with pdf.pdf_workers(1) as workers:
        first = extract_pdf(make_pdf(["Alpha page one", "Bravo page two"], info=INFO), workers=workers)
        pid = _worker_pid(workers)
        second = extract_pdf(make_pdf(["Charlie page three"], xmp=XMP), workers=workers)
        assert first.text == "Alpha page one\n\nBravo page two"
        assert first.title == "Ünïcode title – UTF-16"
        assert second.text == "Charlie page three"
        assert second.xmp_title == "An XMP title with markup"
        assert _worker_pid(workers) == pid != os.getpid()
        assert workers.pids() == [pid]
        assert workers.started == 1
        # another memory cap needs another process (the cap is set when a worker starts)
        assert extract_pdf(make_pdf(["Uncapped"]), workers=workers, memory_limit=0).text == "Uncapped"
        assert workers.started == 2
        assert process_gone(pid)


def test_overrun_kills_the_reused_worker_and_the_next_file_extracts(tmp_path: Path) -> None:
    pid_file = tmp_path / "worker.pid"
    with pdf.pdf_workers(1) as workers:
        assert extract_pdf(make_pdf(["Before the hang"]), workers=workers).text == "Before the hang"
        pid = _worker_pid(workers)
        result = extract_pdf(b"%PDF-1.4\n" + str(pid_file).encode(), time_limit=3.0, worker=slow_worker,
                             workers=workers)
        assert result == PdfContent(error="PDF extraction exceeded the time limit of 3 s", error_kind="timeout")
        assert int(pid_file.read_text()) == pid  # the hanging file ran in the worker the first file used
        assert process_gone(pid), f"worker {pid} still alive after the timeout"
        assert workers.pids() == []
        after = extract_pdf(make_pdf(["After the kill"], info=INFO), workers=workers)
        assert (after.text, after.title, after.error_kind) == ("After the kill", "Ünïcode title – UTF-16", None)
        assert _worker_pid(workers) not in (pid, os.getpid())
        assert workers.started == 2


def test_crashed_worker_is_replaced() -> None:
    with pdf.pdf_workers(1) as workers:
        pid = _worker_pid(workers)
        result = extract_pdf(b"%PDF-1.4\n", worker=crashing_worker, workers=workers)
        assert result == PdfContent(error="PDF worker died without a result (exit code 7)", error_kind="broken")
        assert process_gone(pid)
        assert extract_pdf(make_pdf(["After the crash"]), workers=workers).text == "After the crash"
        assert workers.started == 2


def test_worker_out_of_memory_is_too_large_and_replaced() -> None:
    with pdf.pdf_workers(1) as workers:
        pid = _worker_pid(workers)
        result = extract_pdf(b"%PDF-1.4\n", worker=hungry_worker, workers=workers, memory_limit=pdf.DEFAULT_MEMORY_LIMIT)
        assert result == PdfContent(error="out of memory in the PDF worker", error_kind="too_large")
        assert process_gone(pid)
        assert extract_pdf(make_pdf(["After the bomb"]), workers=workers).text == "After the bomb"
        assert workers.started == 2


def test_raising_worker_keeps_its_process() -> None:
    """An exception is an answer, not a crash: the same process serves the next file."""
    with pdf.pdf_workers(1) as workers:
        pid = _worker_pid(workers)
        result = extract_pdf(b"%PDF-1.4\n", worker=raising_worker, workers=workers)
        assert result == PdfContent(error="RuntimeError: worker bug", error_kind="broken")
        assert extract_pdf(make_pdf(["Next file"]), workers=workers).text == "Next file"
        assert _worker_pid(workers) == pid
        assert workers.started == 1


def test_close_ends_idle_and_busy_workers(tmp_path: Path) -> None:
    if not children_supported():
        pytest.skip("no /proc/<pid>/task/<tid>/children on this system")
    assert extract_pdf(make_pdf(["x"])).text == "x"  # the fork server (a child that lives with this process) runs
    before = descendants()
    workers = pdf.pdf_workers(2)
    pid_file = tmp_path / "busy.pid"
    hung: list[PdfContent] = []
    thread = threading.Thread(target=lambda: hung.append(extract_pdf(
        b"%PDF-1.4\n" + str(pid_file).encode(), worker=slow_worker, workers=workers)))
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while not pid_file.is_file() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the hanging worker never started"
            time.sleep(0.05)
        busy = int(pid_file.read_text())
        assert extract_pdf(make_pdf(["While the other hangs"]), workers=workers).text == "While the other hangs"
        pids = workers.pids()
        assert len(pids) == 2 and busy in pids
        assert set(pids) <= descendants() - before
    finally:
        workers.close()
        thread.join(60)
    assert not thread.is_alive()
    assert hung == [PdfContent(error="PDF worker died without a result (exit code -9)", error_kind="broken")]
    assert descendants() - before == set()  # processes of other tests may have ended meanwhile
    assert workers.pids() == []
    assert extract_pdf(make_pdf(["Too late"]), workers=workers) == PdfContent(
        error="PDF workers already closed", error_kind="broken")


# ---------------------------------------------------------------------------------------------------------------------
# Real PDFs from ../shared/corpus (read from there, never copied)
# ---------------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus_pdf(corpus_dir: Path) -> dict[str, bytes]:
    folder = corpus_dir / "files" / "pdf"
    if not folder.is_dir():
        pytest.skip(f"corpus PDFs not found at {folder}")
    return {path.name: path.read_bytes() for path in folder.iterdir()}


@pytest.fixture(scope="module")
def extracted(corpus_pdf: dict[str, bytes]) -> dict[str, PdfContent]:
    """Each real PDF extracted once, through the worker process as the fetcher does."""
    return {name: extract_pdf(data) for name, data in corpus_pdf.items() if name.endswith(".pdf")}


@pytest.fixture(scope="module")
def pdfminer_read(corpus_pdf: dict[str, bytes]) -> Callable[[str], PdfContent]:
    """pdfminer.six's reading of a real PDF (by name), made once for the tests that compare with it: it is the slow
    reader, 1 to 4 CPU-seconds a PDF."""
    return functools.cache(lambda name: extract_with_pdfminer(corpus_pdf[name]))


def test_corpus_plos_one(extracted: dict[str, PdfContent]) -> None:
    result = extracted["journal.pone.0107412.pdf"]
    assert result.error_kind is None
    assert result.pages == 10
    assert result.title == "pone.0107412 1..10"  # the Info Title really is the typesetter's job name
    assert result.xmp_title == "pone.0107412 1..10"
    assert (result.keywords, result.subject, result.xmp_subjects, result.xmp_description) == ([], "", [], "")
    assert result.text.startswith(
        "Great Spotted Cuckoo Fledglings Often Receive Feedings\nfrom Other Magpie Adults than Their Foster Parents:\n"
        "Which Magpies Accept to Feed Foreign Cuckoo\nFledglings?\n"
    )
    assert "Natural selection penalizes individuals that provide costly parental care to non-relatives." in result.text
    assert "\f" not in result.text


def test_corpus_peerj(extracted: dict[str, PdfContent]) -> None:
    result = extracted["peerj.1120.pdf"]
    assert result.error_kind is None
    assert result.pages == 18
    assert (
        result.title == "Suffering and mental health among older people living in nursing homes---a mixed-methods study"
    )
    assert result.subject == "doi:10.7717/peerj.1120"
    assert result.keywords == []  # the Info Keywords is an empty string
    assert (result.xmp_title, result.xmp_subjects, result.xmp_description) == ("", [], "")
    assert "\nKeywords Suffering, Mental health, Mix-methods, Nursing homes\n" in result.text
    assert "Results. The individual descriptions reveal suffering caused by painful experiences" in result.text
    assert result.text.endswith("Drageset et al. (2015), PeerJ, DOI 10.7717/peerj.1120 18/18")


def test_corpus_nature_communications(extracted: dict[str, PdfContent]) -> None:
    result = extracted["s41467-023-44678-x.pdf"]
    title = (
        "A uniform data processing pipeline enables harmonized nanoparticle protein corona analysis across proteomics "
        "core facilities"
    )
    assert result.error_kind is None
    assert result.pages == 9
    assert result.title == title
    assert result.xmp_title == title
    assert result.subject == "Nature Communications, doi:10.1038/s41467-023-44678-x"
    assert result.xmp_description == "Nature Communications, doi:10.1038/s41467-023-44678-x"
    assert result.keywords == []
    assert result.xmp_subjects == []  # an empty rdf:Bag
    # the "fi" ligatures (U+FB01) are decomposed
    assert "dynamically on nanoparticles in biological fluids and is crucial for predicting" in result.text
    assert "\ufb01" not in result.text


def test_corpus_page_limit(corpus_pdf: dict[str, bytes]) -> None:
    result = extract_pdf(corpus_pdf["peerj.1120.pdf"], max_pages=1)
    assert result.pages == 18
    assert "Keywords Suffering, Mental health, Mix-methods, Nursing homes" in result.text
    assert "Zigmond AS, Snaith RP" not in result.text  # from the last page
    assert result.text.endswith("How to cite this article Drageset et al. (2015), Suffering and mental health among older "
                                "people living in nursing homes—a mixed-\nmethods study. PeerJ 3:e1120; DOI "
                                "10.7717/peerj.1120")


def test_corpus_pdfminer_fallback_gives_the_same_metadata_and_its_own_layout(
        corpus_pdf: dict[str, bytes], pdfminer_read: Callable[[str], PdfContent]) -> None:
    data = corpus_pdf["peerj.1120.pdf"]
    fast, slow = extract_pdf_in_process(data), pdfminer_read("peerj.1120.pdf")
    assert (slow.title, slow.subject, slow.keywords, slow.pages) == (fast.title, fast.subject, fast.keywords, 18)
    assert slow.text.endswith("Drageset et al. (2015), PeerJ, DOI 10.7717/peerj.1120\n\n18/18")
    first_page = extract_with_pdfminer(data, max_pages=1)
    assert first_page.pages == 18 and first_page.text.endswith("OPEN ACCESS")


@pytest.mark.slow
def test_corpus_pdfium_text_has_the_words_of_pdfminer(corpus_pdf: dict[str, bytes],
                                                     pdfminer_read: Callable[[str], PdfContent]) -> None:
    """PDFium's text holds (nearly) every word pdfminer.six finds: 99 % or more of its words of two letters or more,
    counted with repetitions (the rest are letters of rotated figure labels pdfminer.six splits up)."""
    agreement = {}
    for name in ("journal.pone.0107412.pdf", "peerj.1120.pdf", "s41467-023-44678-x.pdf"):
        fast = Counter(re.findall(r"[^\W\d_]{2,}", extract_with_pdfium(corpus_pdf[name]).text.lower()))
        slow = Counter(re.findall(r"[^\W\d_]{2,}", pdfminer_read(name).text.lower()))
        agreement[name] = round(sum((fast & slow).values()) / sum(slow.values()), 3)
    assert all(share >= 0.99 for share in agreement.values()), agreement


def test_corpus_challenge_page_is_not_pdf(corpus_pdf: dict[str, bytes]) -> None:
    data = corpus_pdf["pnas.2307803120.challenge-page.pdf"]
    assert data.startswith(b"<!DOCTYPE html>")
    for result in (extract_pdf(data), extract_pdf_in_process(data)):
        assert result.error_kind == "not_pdf"
        assert result.text == ""


def test_corpus_truncated_is_broken(corpus_pdf: dict[str, bytes]) -> None:
    data = corpus_pdf["peerj.1120.pdf"]
    assert extract_pdf(data[: len(data) // 2]).error_kind == "broken"
