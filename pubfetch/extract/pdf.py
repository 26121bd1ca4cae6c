"""PDF extraction: full text (PDFium through pypdfium2, pdfminer.six as fallback), info-dictionary and XMP Dublin Core
metadata (pdfminer.six; the XMP packet is read by :mod:`pubfetch.extract.pdf_xmp`), and what the file says it is (the
DOIs its metadata names, its first page) for the identity check.

PubFetcher's PDF source (spec section 5) gives the fulltext from the extracted text, the title, keywords (split on
``[,;|]``) and subject (used as the abstract) from the document information dictionary, and title, subjects and
description from the XMP Dublin Core schema. Like every parser in ``pubfetch.extract`` this one never raises on bad
content: a body that is not a PDF, a broken or truncated file, a password-protected file, an oversized file or a file
that makes pdfminer.six spin are all reported as a classified :class:`PdfContent` (``error_kind``) instead.

The text comes from PDFium (C++, much faster than pdfminer.six's pure-Python layout analysis, with the same words;
docs/throughput.md has the figures); pdfminer.six reads what PDFium has no API for (the XMP packet, the info dictionary)
and does everything when PDFium cannot open a file (encryption with a password, damage it does not repair) or when
pypdfium2 is not installed. pdfminer.six can loop for a very long time (or forever) on hostile files, PDFium can crash
on them, and a thread cannot be stopped from the outside, so :func:`extract_pdf` runs the extraction in a separate
process that is killed when it overruns its time limit; a run reuses such processes from file to file
(:func:`pdf_workers`, ``pubfetch.extract.workerpool``). :func:`extract_pdf_in_process` is the same extraction without
that protection, for callers that already isolate it (and for the worker process itself).
"""

from __future__ import annotations

import ctypes
import gc
import logging
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from io import BytesIO, StringIO
from typing import Any, Literal

from pdfminer.converter import TextConverter
from pdfminer.layout import LAParams
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import PDFStream, resolve1
from pdfminer.psparser import PSLiteral
from pdfminer.utils import decode_text

from pubfetch import ids as idmod
from pubfetch.extract.pdf_plain import plain_metadata
from pubfetch.extract.pdf_text import page_text
from pubfetch.extract.pdf_xmp import LEADING_JUNK as _LEADING_JUNK
from pubfetch.extract.pdf_xmp import parse_xmp, read_xmp
from pubfetch.extract.pdf_xmp import strip_markup as _strip_html
from pubfetch.extract.pdf_xmp import unique as _unique
from pubfetch.extract.pdf_xref import PdfDocument
from pubfetch.extract.workerpool import Outcome, WorkerPool

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_PAGES",
    "DEFAULT_MEMORY_LIMIT",
    "DEFAULT_TIME_LIMIT",
    "ErrorKind",
    "PdfContent",
    "Worker",
    "extract_pdf",
    "extract_pdf_in_process",
    "extract_with_pdfium",
    "extract_with_pdfminer",
    "looks_like_pdf",
    "parse_xmp",
    "pdf_workers",
    "split_keywords",
]

log = logging.getLogger(__name__)

ErrorKind = Literal["not_pdf", "broken", "encrypted", "timeout", "too_large"]

DEFAULT_MAX_PAGES = 200
"""Pages whose text is extracted; long documents (theses, supplements) cost time and add little to a fulltext."""
DEFAULT_TIME_LIMIT = 60.0
"""Seconds one file may take in its worker (from the moment the worker is ready: a start is not the file's) before
the worker is killed."""
DEFAULT_MAX_BYTES = 100 * 1024 * 1024
"""Bodies larger than this are not parsed at all: pdfminer.six holds the whole file and its objects in memory."""
#: Address space a PDF worker may use (RLIMIT_AS): a 2 MB compression-bomb PDF took a worker to 4 GiB, and eight
#: threads can run eight workers. Real articles stay far below; hitting it is a ``too_large`` result.
DEFAULT_MEMORY_LIMIT = 1536 * 1024 * 1024

#: Characters of the first page kept for the identity check (a page of an article is a few thousand).
FIRST_PAGE_CHARS = 20_000

_SNIFF_BYTES = 1024
_BOMS = (b"\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe")


_KEYWORD_SPLIT = re.compile(r"[,;|]")
_LANG_ESCAPE = re.compile("\x1b[^\x1b]*\x1b")
# The Unicode "presentation forms" (ligatures such as U+FB01 "fi") that PDFBox's text stripper, PubFetcher's extractor,
# decomposes; left alone they break word search in the fulltext.
_PRESENTATION_FORMS = re.compile("[\ufb00-\ufdff\ufe70-\ufefe]+")
_TRAILING_SPACE = " \t\u00a0"
_MANY_NEWLINES = re.compile(r"\n{3,}")


@dataclass
class PdfContent:
    """What one PDF gave; every field is empty when it was not found.

    ``error``/``error_kind`` describe the first problem met. The content fields still hold whatever was extracted before
    or despite it (a PDF with one unreadable page still has the text of the others), so callers should use non-empty
    content whatever ``error_kind`` says.
    """

    text: str = ""
    title: str = ""
    keywords: list[str] = field(default_factory=list)
    subject: str = ""
    """The info dictionary's Subject; PubFetcher uses it as the abstract."""
    xmp_title: str = ""
    xmp_subjects: list[str] = field(default_factory=list)
    xmp_description: str = ""
    pages: int = 0
    """Pages in the document; the text covers at most ``max_pages`` of them."""
    dois: list[str] = field(default_factory=list)
    """The DOIs the metadata names (info-dictionary values, XMP identifiers): what the file says it is."""
    first_page: str = ""
    """The first page's text (at most :data:`FIRST_PAGE_CHARS`), where an article shows its title and DOI."""
    error: str | None = None
    error_kind: ErrorKind | None = None

    @property
    def ok(self) -> bool:
        """True when nothing went wrong."""
        return self.error_kind is None


def _failure(kind: ErrorKind, message: str) -> PdfContent:
    return PdfContent(error=message, error_kind=kind)


def looks_like_pdf(data: bytes) -> bool:
    """Whether ``data`` starts with ``%PDF`` after optional BOM/whitespace within its first 1024 bytes.

    Checked before any parsing so that HTML error and challenge pages served as ``application/pdf`` (a common way for
    publishers to refuse robots) are classified as such without starting a worker or feeding HTML to pdfminer.six.
    """
    head = bytes(data[:_SNIFF_BYTES])
    while True:
        stripped = head.lstrip(_LEADING_JUNK)
        for bom in _BOMS:
            stripped = stripped.removeprefix(bom)
        if stripped == head:
            break
        head = stripped
    return head.startswith(b"%PDF")


# ---------------------------------------------------------------------------------------------------------------------
# Value cleaning
# ---------------------------------------------------------------------------------------------------------------------


def _decode_pdf_string(raw: bytes) -> str:
    """Decode a PDF text string: UTF-16BE with BOM (the standard), PDFDocEncoding, and the UTF-8 (PDF 2.0) and
    little-endian UTF-16 BOMs that some producers write."""
    if raw.startswith(b"\xef\xbb\xbf"):
        text = raw[3:].decode("utf-8", "replace")
    elif raw.startswith(b"\xff\xfe"):
        text = raw[2:].decode("utf-16-le", "ignore")
    else:
        text = decode_text(raw)
    # UTF-16 strings may embed language tags between ESC characters (PDF 32000 7.9.2.2).
    return _LANG_ESCAPE.sub("", text).replace("\x00", "")


def _info_text(value: Any) -> str:
    """The cleaned text of an info-dictionary value, whatever PDF object it turned out to be."""
    try:
        value = resolve1(value)
    except Exception as exc:  # noqa: BLE001 - a dangling or broken reference is just a missing value
        log.debug("unresolvable info value: %s", exc)
        return ""
    if isinstance(value, bytes):
        text = _decode_pdf_string(value)
    elif isinstance(value, str):
        text = value
    elif isinstance(value, PSLiteral):
        name = value.name
        text = name.decode("latin-1") if isinstance(name, bytes) else str(name)
    else:
        return ""
    return _strip_html(text)


def split_keywords(value: str) -> list[str]:
    """Split an info-dictionary Keywords string on ``[,;|]`` (HTML already stripped, so entities cannot split)."""
    return _unique(_KEYWORD_SPLIT.split(value))


def _normalise_text(raw: str, forms: bool = True) -> str:
    """Minimal clean-up of extracted text that keeps its paragraph breaks.

    Page breaks (form feeds) become blank lines, ligatures are decomposed, trailing spaces dropped and runs of blank
    lines shortened to one; line breaks inside paragraphs are kept, as PubFetcher's fulltext keeps them. ``forms``
    False: the caller knows the text has no presentation forms. Each regular expression runs only where a fast
    substring test says it has something to change (they cost more than PDFium's text of a page otherwise).
    """
    text = raw.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n\n").replace("\x00", "")
    if forms:
        text = _PRESENTATION_FORMS.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)
    if " \n" in text or "\t\n" in text or "\xa0\n" in text:  # line by line: a regex tries every position
        lines = text.split("\n")
        text = "\n".join([*(line.rstrip(_TRAILING_SPACE) for line in lines[:-1]), lines[-1]])
    if "\n\n\n" in text:
        text = _MANY_NEWLINES.sub("\n\n", text)
    return text.strip()


# ---------------------------------------------------------------------------------------------------------------------
# Info dictionary and XMP
# ---------------------------------------------------------------------------------------------------------------------


def _read_info(result: PdfContent, infos: list[Any]) -> None:
    """Fill title, keywords and subject; with incremental updates the newest dictionary comes first and wins."""
    values: dict[str, str] = {}
    dois: list[str] = []
    for reference in infos:
        try:
            info = resolve1(reference)
            if not isinstance(info, dict):
                continue
            for key in ("Title", "Keywords", "Subject"):
                if not values.get(key) and key in info:
                    values[key] = _info_text(info[key])
            dois += _info_dois({str(k): _info_text(v) for k, v in info.items()})
        except Exception as exc:  # noqa: BLE001
            log.debug("unreadable info dictionary: %s", exc)
    result.title = values.get("Title", "")
    result.subject = values.get("Subject", "")
    result.keywords = split_keywords(values.get("Keywords", ""))
    result.dois = _unique(result.dois + dois)


#: Words of a Subject that names the PDF's DOI ("Nature Communications, doi:10.1038/..."), not an abstract
_LABEL_WORDS = 6


def _info_dois(info: dict[str, str]) -> list[str]:
    """DOIs of an info dictionary that name the PDF: under a key naming a DOI (``doi``, ``WPS-ARTICLEDOI``), or a
    Subject that is only a label and a DOI (``doi:10.7717/peerj.1120``, ``Nature Communications, doi:10.1038/...``).
    A Subject of running text is the abstract: the DOIs written in it (a data set's, a cited paper's) say whose PDF
    it is only when they match (:func:`pubfetch.extract.identity_claims.pdf_claims`)."""
    return [d for key, value in info.items()
            if "doi" in key.lower() or key == "Subject" and len(value.split()) <= _LABEL_WORDS
            for d in idmod.dois_in_text(value)]


def _read_xmp(result: PdfContent, doc: PdfDocument) -> None:
    try:
        stream = resolve1(doc.catalog.get("Metadata"))
        if not isinstance(stream, PDFStream):
            return
        raw = stream.get_data()
    except Exception as exc:  # noqa: BLE001
        log.debug("unreadable XMP metadata stream: %s", exc)
        return
    _apply_xmp(result, raw)


def _apply_xmp(result: PdfContent, raw: bytes) -> None:
    if raw:
        result.xmp_title, result.xmp_subjects, result.xmp_description, dois = read_xmp(raw)
        result.dois = _unique(dois + result.dois)


# ---------------------------------------------------------------------------------------------------------------------
# Extraction
# ---------------------------------------------------------------------------------------------------------------------


def _read_text(result: PdfContent, doc: PdfDocument, max_pages: int) -> None:
    """What pdfminer.high_level.extract_text does (default LAParams, form feed after each page), but on the document
    already opened for the metadata, and page by page so that one unreadable page does not lose the others."""
    resources = PDFResourceManager(caching=True)
    output = StringIO()
    device = TextConverter(resources, output, laparams=LAParams())
    interpreter = PDFPageInterpreter(resources, device)
    pages = 0
    try:
        for page in PDFPage.create_pages(doc):
            pages += 1
            if 0 < max_pages < pages:
                continue  # still counted
            try:
                interpreter.process_page(page)
            except MemoryError:
                raise
            except Exception as exc:  # noqa: BLE001
                log.debug("page %d unreadable: %s", pages, exc)
                if result.error_kind is None:
                    result.error, result.error_kind = f"page {pages}: {type(exc).__name__}: {exc}", "broken"
    except MemoryError:
        result.error, result.error_kind = "out of memory while extracting text", "too_large"
    except Exception as exc:  # noqa: BLE001
        log.debug("page tree unreadable after %d pages: %s", pages, exc)
        if result.error_kind is None:
            result.error, result.error_kind = f"page tree: {type(exc).__name__}: {exc}", "broken"
    finally:
        device.close()
    result.pages = pages
    raw = output.getvalue()
    result.text = _normalise_text(raw)
    result.first_page = _normalise_text(raw.split("\f", 1)[0])[:FIRST_PAGE_CHARS]


def _open_pdfminer(data: bytes) -> PdfDocument | PdfContent:
    """The pdfminer.six document (its cross-reference tables read on demand), or the classified failure to open it."""
    try:
        return PdfDocument(PDFParser(BytesIO(data)), data, password="")
    except PDFPasswordIncorrect:
        return _failure("encrypted", "PDF is encrypted with a non-empty password")
    except PDFEncryptionError as exc:
        return _failure("encrypted", f"unsupported PDF encryption: {exc}")
    except MemoryError:
        return _failure("too_large", "out of memory while opening the PDF")
    except Exception as exc:  # noqa: BLE001 - pdfminer.six signals broken files with many exception types
        return _failure("broken", f"{type(exc).__name__}: {exc}")


def extract_pdf_in_process(data: bytes, max_pages: int = DEFAULT_MAX_PAGES) -> PdfContent:
    """Extract text and metadata from ``data`` in the calling process, without a time limit.

    ``max_pages`` <= 0 means no page limit. Encrypted files are opened with the empty user password (most "protected"
    journal PDFs only restrict printing or copying). Never raises on bad content.
    """
    if not looks_like_pdf(data):
        return _failure("not_pdf", "body does not start with %PDF")
    fast = extract_with_pdfium(data, max_pages)
    return fast if fast is not None else extract_with_pdfminer(data, max_pages)


def extract_with_pdfminer(data: bytes, max_pages: int = DEFAULT_MAX_PAGES) -> PdfContent:
    """Everything with pdfminer.six (the fallback of :func:`extract_with_pdfium`)."""
    doc = _open_pdfminer(data)
    if isinstance(doc, PdfContent):
        return doc
    result = PdfContent()
    try:
        _read_info(result, doc.info)
        _read_xmp(result, doc)
        _read_text(result, doc, max_pages)
    except MemoryError:
        result.error, result.error_kind = "out of memory while extracting", "too_large"
    except Exception as exc:  # noqa: BLE001 - belt and braces: the readers catch their own failures
        result.error, result.error_kind = f"{type(exc).__name__}: {exc}", "broken"
    return result


def extract_with_pdfium(data: bytes, max_pages: int = DEFAULT_MAX_PAGES) -> PdfContent | None:
    """Text, page count and info dictionary from PDFium, the XMP packet from pdfminer.six; ``None`` when PDFium cannot
    open the file (or pypdfium2 is missing), so that pdfminer.six does it all and classifies the failure."""
    try:
        import pypdfium2
        import pypdfium2.raw as pdfium_c
    except ImportError:
        return None
    try:
        pdf = pypdfium2.PdfDocument(data)
    except Exception as exc:  # noqa: BLE001 - PdfiumError for damaged or password-protected files
        log.debug("PDFium cannot open the PDF (%s); pdfminer.six tries", exc)
        return None
    try:
        result = _metadata(data, pdfium_c, pdf.raw)
        _read_text_pdfium(result, pdfium_c, pdf.raw, len(pdf), max_pages)
    except MemoryError:
        result = PdfContent(error="out of memory while extracting", error_kind="too_large")
    finally:
        pdf.close()
    return result


def _metadata(data: bytes, pdfium_c: Any, document: Any) -> PdfContent:
    """The info dictionary from PDFium (C, where pdfminer.six parses its strings in Python) unless only pdfminer.six
    reads it as it is meant (:func:`_info_for_pdfminer`); the XMP packet found without a parser in a plainly written
    file (:mod:`pubfetch.extract.pdf_plain`), else by pdfminer.six; the info dictionary from PDFium alone when
    pdfminer.six cannot open the file."""
    result = PdfContent()
    plain = plain_metadata(data)
    if plain is not None and (plain.info is None or not _names_doi(data, plain.info)):
        try:
            _read_pdfium_info(result, pdfium_c, document)
            _apply_xmp(result, plain.xmp)
        except Exception as exc:  # noqa: BLE001 - metadata is optional
            log.debug("unreadable metadata: %s", exc)
        return result
    doc = _open_pdfminer(data)
    if isinstance(doc, PdfContent):
        _read_pdfium_info(result, pdfium_c, document)
        return result
    try:
        if _info_for_pdfminer(data, doc):
            _read_info(result, doc.info)
        else:
            _read_pdfium_info(result, pdfium_c, document)
        _read_xmp(result, doc)
    except Exception as exc:  # noqa: BLE001 - the readers catch their own failures; metadata is optional
        log.debug("unreadable metadata: %s", exc)
    return result


#: A name in an info dictionary that may name a DOI (``/doi``, ``/WPS-ARTICLEDOI``), or a ``#`` escape that could hide
#: one; matched on the dictionary's bytes in lower case.
_DOI_NAME = re.compile(rb"/[^\s()<>\[\]{}/%]*doi|#")


def _info_for_pdfminer(data: bytes, doc: PdfDocument) -> bool:
    """Whether the info dictionary must be read by pdfminer.six: PDFium reads one dictionary's entries by their names
    (Title, Subject, Keywords), while the DOIs come from any entry whose name says DOI, and pdfminer.six merges the
    dictionaries of several trailers. So: several dictionaries, one inline or in an object stream, or a name that may
    say DOI among the dictionary's bytes (a string with ``/doi`` in it counts too: pdfminer.six is never wrong)."""
    if not doc.info:
        return False
    position = doc.info_position()
    return position is None or _names_doi(data, position)


def _names_doi(data: bytes, position: int) -> bool:
    """Whether the info dictionary at ``position`` may have an entry whose name says DOI (:data:`_DOI_NAME`)."""
    end = data.find(b"endobj", position)
    return end < 0 or _DOI_NAME.search(data[position:end].lower()) is not None


def _read_pdfium_info(result: PdfContent, pdfium_c: Any, document: Any) -> None:
    """Title, keywords, subject and the Subject's DOI from the info dictionary PDFium reads (the newest trailer's)."""
    title, subject, keywords = (_pdfium_meta(pdfium_c, document, key) for key in (b"Title", b"Subject", b"Keywords"))
    result.title = title
    result.subject = subject
    result.keywords = split_keywords(keywords)
    result.dois = _unique(result.dois + _info_dois({"Subject": subject}))


def _pdfium_meta(pdfium_c: Any, document: Any, key: bytes) -> str:
    """One info entry as :func:`_info_text` cleans pdfminer.six's (PDFium decodes the PDF text string)."""
    size = pdfium_c.FPDF_GetMetaText(document, key, None, 0)
    if size <= 2:  # the terminating NUL alone
        return ""
    buffer = ctypes.create_string_buffer(size)
    pdfium_c.FPDF_GetMetaText(document, key, buffer, size)
    text = buffer.raw[: size - 2].decode("utf-16-le", "ignore")
    return _strip_html(_LANG_ESCAPE.sub("", text).replace("\x00", ""))


def _read_text_pdfium(result: PdfContent, pdfium_c: Any, document: Any, pages: int, max_pages: int) -> None:
    """Page by page (one unreadable page does not lose the others; each page closed once read), pages separated by
    form feeds as pdfminer.six separates them. PDFium marks a hyphen at a line end by U+FFFE and drops the line
    break: both are put back."""
    texts: list[str] = []
    forms = False
    for index in range(pages if max_pages <= 0 else min(pages, max_pages)):
        try:
            text, page_forms = page_text(pdfium_c, document, index)
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001
            log.debug("page %d unreadable: %s", index + 1, exc)
            if result.error_kind is None:
                result.error, result.error_kind = f"page {index + 1}: {type(exc).__name__}: {exc}", "broken"
            continue
        texts.append(text)
        forms = forms or page_forms
    result.pages = pages
    result.text = _normalise_text("\f".join(texts).replace("\ufffe", "-\n"), forms)
    if texts:
        result.first_page = _normalise_text(texts[0].replace("\ufffe", "-\n"), forms)[:FIRST_PAGE_CHARS]


# ---------------------------------------------------------------------------------------------------------------------
# Worker processes
# ---------------------------------------------------------------------------------------------------------------------

Worker = Callable[[bytes, int], PdfContent]


def _quiet_pdfminer() -> None:
    """Run once in each worker: hostile files make pdfminer.six warn per object. What the worker imported (the fork
    server's modules, the page readers' among them) stays for its life, so it is frozen out of the garbage collector,
    whose full collections would otherwise walk it again and again."""
    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    gc.freeze()


def pdf_workers(size: int = 1) -> WorkerPool:
    """Worker processes for :func:`extract_pdf`, reused from file to file: at most ``size`` of them (a run gives its
    CPU slots), each started on first need from a fork server that has this module (pdfminer.six, lxml) imported.
    The owner closes the pool (``Context.close`` for a fetch run)."""
    # the page readers and their warm-up too: one fork server serves both pools of a process, and the first pool to
    # start it decides
    return WorkerPool(size, setup=_quiet_pdfminer,
                      preload=(__name__, "pubfetch.extract.page_read", "pubfetch.extract.reader_preload"),
                      name="pubfetch-pdf")


_DIED = "PDF worker died without a result"


def _content(outcome: Outcome, time_limit: float) -> PdfContent:
    """The :class:`PdfContent` for how the job ended: the extraction's own result, or a classified failure."""
    if outcome.kind == "ok":
        if isinstance(outcome.value, PdfContent):
            return outcome.value
        return _failure("broken", f"PDF worker returned {type(outcome.value).__name__}")
    if outcome.kind == "timeout":
        log.warning("PDF extraction exceeded %.1f s; worker %s killed", time_limit, outcome.pid)
        return _failure("timeout", f"PDF extraction exceeded the time limit of {time_limit:g} s")
    if outcome.kind == "memory":
        return _failure("too_large", "out of memory in the PDF worker")
    if outcome.kind == "died":
        return _failure("broken", f"{_DIED} (exit code {outcome.exitcode})")
    if outcome.kind == "unsendable":
        return _failure("broken", f"PDF worker result not sendable: {outcome.message}")
    if outcome.kind == "closed":
        return _failure("broken", "PDF workers already closed")
    return _failure("broken", outcome.message)


def _extract_isolated(workers: WorkerPool, worker: Worker, data: bytes, max_pages: int, time_limit: float,
                      memory_limit: int) -> PdfContent:
    """One extraction in the pool, with pdfminer.six alone (in a fresh worker) when the PDFium worker died."""
    outcome = workers.run(worker, data, max_pages, time_limit=time_limit, memory_limit=memory_limit)
    result = _content(outcome, time_limit)
    if worker is extract_pdf_in_process and outcome.kind == "died":
        # PDFium aborts the process where pdfminer.six raises (out of memory under the cap, some damage): the file
        # is given to pdfminer.six alone, which classifies it
        log.info("PDFium worker died (%s); extracting with pdfminer.six", result.error)
        outcome = workers.run(extract_with_pdfminer, data, max_pages, time_limit=time_limit, memory_limit=memory_limit)
        result = _content(outcome, time_limit)
    return result


def extract_pdf(
    data: bytes,
    max_pages: int = DEFAULT_MAX_PAGES,
    time_limit: float = DEFAULT_TIME_LIMIT,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    worker: Worker = extract_pdf_in_process,
    workers: WorkerPool | None = None,
) -> PdfContent:
    """Extract text and metadata from ``data`` in a worker process that is killed after ``time_limit`` seconds and
    whose address space is capped at ``memory_limit`` bytes (0: no cap; running out is a ``too_large`` result).

    ``workers`` (from :func:`pdf_workers`) are reused from call to call, which is what makes a run fast; a worker that
    overran, died or ran out of memory is replaced for the next call. Without them a process is started for this
    file alone and ended before returning (for callers that have no run to own a pool).

    Non-PDF bodies (``not_pdf``) and bodies over ``max_bytes`` (``too_large``, 0 for no limit) are classified without
    starting a worker. ``worker`` replaces the extraction (tests use slow or crashing ones); it runs in another process,
    so it must be a picklable module-level function. As with any multiprocessing use, a script calling this must guard
    its entry point with ``if __name__ == "__main__":``. Never raises on bad content.
    """
    if not looks_like_pdf(data):
        return _failure("not_pdf", "body does not start with %PDF")
    if max_bytes > 0 and len(data) > max_bytes:
        return _failure("too_large", f"PDF of {len(data)} bytes exceeds the limit of {max_bytes} bytes")
    if workers is not None:
        return _extract_isolated(workers, worker, bytes(data), max_pages, time_limit, memory_limit)
    with pdf_workers(1) as one_off:
        return _extract_isolated(one_off, worker, bytes(data), max_pages, time_limit, memory_limit)
