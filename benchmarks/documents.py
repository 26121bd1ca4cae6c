"""Synthetic documents for the parse benchmarks, shaped like the real ones and built from tests/support/synthetic.py's articles.

The recorded corpus (../shared/corpus) has only a handful of files per kind; these add many documents of a known size
so that the throughput figures do not hang on one odd file: PubMed efetch sets, JATS articles, publisher-like HTML
pages (navigation, article, references, footer) and multi-page text PDFs.
"""

from __future__ import annotations

import textwrap
from xml.sax.saxutils import escape

from services import SyntheticServices
from support.synthetic import Article

PDF_LINES_PER_PAGE = 48


def pubmed_set(services: SyntheticServices, start: int, count: int) -> bytes:
    """One efetch answer (PubmedArticleSet) with ``count`` records."""
    records = "".join(services.pubmed_xml(Article(i)) for i in range(start, start + count))
    return ('<?xml version="1.0" ?>\n<PubmedArticleSet>' + records + "</PubmedArticleSet>").encode("utf-8")


def jats_article(services: SyntheticServices, index: int) -> bytes:
    """One Europe PMC fullTextXML answer."""
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + services.jats(Article(index))).encode("utf-8")


def publisher_page(index: int) -> bytes:
    """A journal article page as publishers serve them: menus, the article, references, a footer and scripts."""
    a = Article(index)
    nav = "".join(f'<li><a href="/section/{k}">Section {k}</a></li>' for k in range(12))
    sections = "".join(
        f"<section><h2>Part {k}</h2>" + "".join(f"<p>{escape(p)}</p>" for p in a.body_paragraphs()) + "</section>"
        for k in range(4))
    refs = "".join(f'<li id="ref{k}">Author {k}. A cited work on {escape(a.keywords[k % 3])}. '
                   f'<a href="https://doi.org/10.5555/ref.{k}">doi</a></li>' for k in range(40))
    related = "".join(f'<li><a href="/article/{index + k}">Related article {k}</a></li>' for k in range(10))
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{escape(a.title)}</title>"
            f"<meta name='description' content='{escape(a.abstract[:200])}'>"
            f"<meta name='citation_title' content='{escape(a.title)}'><meta name='citation_doi' content='{a.doi}'>"
            f"<script>window.dataLayer = [];</script><style>body {{ font-family: serif; }}</style></head><body>"
            f"<header class='site-header'><div class='logo'>Journal of Synthetic Biology</div><nav><ul>{nav}</ul>"
            f"</nav></header><div class='cookie-banner'>We use cookies. <button>Accept</button></div>"
            f"<main><article><h1>{escape(a.title)}</h1><div class='authors'>Jane Doe, Richard Roe</div>"
            f"<section class='abstract'><h2>Abstract</h2><p>{escape(a.abstract)}</p></section>{sections}"
            f"<section class='references'><h2>References</h2><ol>{refs}</ol></section></article>"
            f"<aside class='related-articles'><h3>Related articles</h3><ul>{related}</ul></aside></main>"
            f"<footer><p>Copyright 2024 Synthetic Publishing</p><ul><li><a href='/privacy'>Privacy</a></li></ul>"
            f"</footer><script src='/static/app.js'></script></body></html>").encode()


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def text_pdf(index: int, pages: int) -> bytes:
    """A PDF of ``pages`` pages, each with :data:`PDF_LINES_PER_PAGE` lines of Helvetica text (an article's page)."""
    a = Article(index)
    words = " ".join([a.title, a.abstract, *a.body_paragraphs()] * 4)
    lines = textwrap.wrap(words, 90)
    objects: list[bytes] = [b"", b"", b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for p in range(pages):
        chunk = [lines[(p * PDF_LINES_PER_PAGE + k) % len(lines)] for k in range(PDF_LINES_PER_PAGE)]
        ops = " T* ".join(f"{_pdf_string(line)} Tj" for line in chunk)
        stream = f"BT /F1 10 Tf 14 TL 60 760 Td {ops} ET".encode("latin-1")
        content_ref = len(objects) + 2
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                       f"/Contents {content_ref} 0 R >>".encode())
        kids.append(f"{len(objects)} 0 R")
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {pages} >>".encode()
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
