"""Property-based fuzzing of every parser in ``pubfetch/extract/`` with mutated real documents.

Seeds are the recorded responses of ../shared/corpus (through the ``corpus_dir`` fixture; without it, only the small
hand-written documents of tests/data/documents) and tests/data/documents. Hypothesis mutates them at three levels -- bytes (cuts,
duplications, insertions of markup and JSON tokens, encodings marks, NULs), XML elements (removed, duplicated, moved,
text replaced) and JSON values (any value replaced by a value of any type) -- and each parser must either return a
result of the documented type, whose fields have their documented types and whose IDs are valid, or raise ValueError.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from pubfetch import ids as idmod
from pubfetch.extract.annotations import parse_annotations, parse_annotations_json, parse_annotations_xml
from pubfetch.extract.clean import clean_html, meta_description, page_title
from pubfetch.extract.europepmc import SearchPage, markup_text, parse_search, parse_search_json, parse_search_xml
from pubfetch.extract.jats import parse_jats
from pubfetch.extract.meta import parse_meta
from pubfetch.extract.meta_scan import meta_tags
from pubfetch.extract.pdf import PdfContent, extract_pdf, parse_xmp
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.pubmed_html import parse_pubmed_html
from pubfetch.extract.scrape import WebpageContent, scrape_journal, scrape_webpage
from pubfetch.extract.unpaywall import parse_unpaywall
from pubfetch.model.parts import Author, CorrespAuthor, MeshTerm, MinedTerm
from pubfetch.model.record import ArticleRecord, Link
from pubfetch.rules import ScrapingRules

DOCS = Path(__file__).parent / "data" / "documents"
PAGE_URL = "https://publisher.example/article/1"
HTML_CROP = 40_000  # bs4 takes ~1 s per 100 kB; the head and the start of the body carry what the parsers read
GENERIC_RULES = """'^https?://': generic
---
generic:
  pmid: 'meta[name=citation_pmid]'
  doi: 'meta[name=citation_doi], .doi'
  title: 'h1, title'
  subtitle: 'h2'
  keywords: '.keywords li, .kwd'
  keywords_split: 'meta[name=keywords]'
  abstract: '.abstract p, #abstract, section.abstract'
  fulltext: 'article p, main p, .body p'
  fulltext_a: 'a.full-text'
  pdf_a: 'a[href$=".pdf"], a.pdf'
  corresp_author_names: '.corresp .name'
  corresp_author_emails: 'a[href^="mailto:"]'
"""
_RULES = ScrapingRules()
_RULES.add_journals(GENERIC_RULES, "generic.yaml")
GENERIC_RULE = _RULES.journal_rule(PAGE_URL)

# ---------------------------------------------------------------------------------------------------- result checks

_STR_FIELDS = ("pmid", "pmcid", "doi", "title", "abstract", "fulltext", "journal_title", "pub_date", "volume", "issue",
               "pages", "issn", "eissn", "publisher")
_LIST_FIELDS = {"keywords": str, "mesh": MeshTerm, "efo": MinedTerm, "go": MinedTerm, "corresp_author": CorrespAuthor,
                "authors": Author, "pub_types": str, "links": Link}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _check_dataclass_strings(value: object) -> None:
    for f in dataclasses.fields(value):  # type: ignore[arg-type]
        item = getattr(value, f.name)
        if isinstance(item, list):
            assert all(isinstance(x, str) for x in item), (type(value).__name__, f.name, item)
        elif item is not None and not isinstance(item, bool | int):
            assert isinstance(item, str), (type(value).__name__, f.name, item)


def check_record(record: object) -> None:
    assert isinstance(record, ArticleRecord), type(record)
    for name in _STR_FIELDS:
        assert isinstance(getattr(record, name), str), name
    for name, kind in _LIST_FIELDS.items():
        items = getattr(record, name)
        assert isinstance(items, list) and all(isinstance(x, kind) for x in items), (name, items)
        for x in items:
            if not isinstance(x, str):
                _check_dataclass_strings(x)
    assert all(isinstance(t.count, int) for t in record.efo + record.go)
    assert record.citations_count is None or (isinstance(record.citations_count, int)
                                              and not isinstance(record.citations_count, bool))
    assert record.oa is None or isinstance(record.oa, bool)
    assert record.preprint is None or isinstance(record.preprint, bool)
    assert isinstance(record.flags, dict)
    # invalid IDs are dropped, never passed on
    assert not record.pmid or idmod.is_pmid(record.pmid), record.pmid
    assert not record.pmcid or idmod.is_pmcid(record.pmcid), record.pmcid
    assert not record.doi or idmod.is_doi(record.doi), record.doi
    assert not record.pub_date or _DATE.match(record.pub_date), record.pub_date


def check_records(result: object) -> None:
    assert isinstance(result, list)
    for record in result:
        check_record(record)


def check_page(result: object) -> None:
    assert isinstance(result, SearchPage)
    check_records(result.records)
    assert result.hit_count is None or isinstance(result.hit_count, int)
    assert isinstance(result.next_cursor_mark, str)


def check_str(result: object) -> None:
    assert isinstance(result, str)


def check_webpage(result: object) -> None:
    assert isinstance(result, WebpageContent)
    _check_dataclass_strings(result)


def check_xmp(result: object) -> None:
    title, subjects, description = result  # type: ignore[misc]
    assert isinstance(title, str) and isinstance(description, str)
    assert isinstance(subjects, list) and all(isinstance(s, str) for s in subjects)


def check_meta_tags(result: object) -> None:
    assert isinstance(result, list) and all(isinstance(k, str) and isinstance(v, str) for k, v in result)


def check_pdf(result: object) -> None:
    assert isinstance(result, PdfContent)
    assert result.error_kind in (None, "not_pdf", "broken", "encrypted", "timeout", "too_large")
    assert isinstance(result.text, str) and isinstance(result.title, str) and isinstance(result.pages, int)
    assert all(isinstance(k, str) for k in result.keywords + result.xmp_subjects)


# ---------------------------------------------------------------------------------------------------- targets


@dataclasses.dataclass(frozen=True)
class Target:
    parse: Callable[[Any], Any]
    check: Callable[[object], None]
    corpus: tuple[str, ...]  # corpus resources whose bodies are seeds
    docs: tuple[str, ...]  # tests/data/documents files that are seeds
    kind: str  # "xml", "json", "html", "pdf": which structural mutations apply
    per_example: int = 3  # documents tried per Hypothesis example (1 for the slow HTML parsers)
    text: bool = True  # the parser also takes str


TARGETS: dict[str, Target] = {
    "parse_pubmed_xml": Target(parse_pubmed_xml, check_records, ("pubmed_efetch",), ("pubmed/mixed_set.xml",), "xml"),
    "parse_jats": Target(parse_jats, check_records, ("europepmc_fulltext", "pmc_efetch"),
                         ("jats_article.xml", "pmc_articleset.xml"), "xml", 2),
    "parse_search_xml": Target(parse_search_xml, check_page, (), ("epmc_search_core.xml",), "xml"),
    "parse_search_json": Target(parse_search_json, check_page, ("europepmc_search",), (), "json"),
    "parse_search": Target(parse_search, check_page, ("europepmc_search",), ("epmc_search_core.xml",), "json", 2),
    "parse_annotations": Target(parse_annotations, check_records, ("europepmc_annotations",),
                                ("annotations.xml",), "json"),
    "parse_annotations_json": Target(parse_annotations_json, check_records, ("europepmc_annotations",), (), "json", 2),
    "parse_annotations_xml": Target(parse_annotations_xml, check_records, (), ("annotations.xml",), "xml", 2),
    "parse_unpaywall": Target(parse_unpaywall, check_record, ("unpaywall",), ("unpaywall.json",), "json"),
    "parse_xmp": Target(parse_xmp, check_xmp, (), (), "xml", 3, text=False),
    "markup_text": Target(lambda d: markup_text(d if isinstance(d, str) else d.decode("utf-8", "replace")), check_str,
                          (), ("jats_article.xml",), "xml", 2),
    "parse_meta": Target(lambda d: parse_meta(d, PAGE_URL), check_record, ("publisher_page",),
                         ("meta/highwire_page.html", "meta/eprints_page.html"), "html", 1),
    "meta_tags": Target(lambda d: meta_tags(d, include_property=True), check_meta_tags, ("publisher_page",),
                        ("meta/highwire_page.html",), "html", 1),
    "clean_html": Target(lambda d: clean_html(d, PAGE_URL, publication=True), check_str, ("publisher_page",),
                         ("meta/highwire_page.html", "pubmed/article_page.html"), "html", 1),
    "page_title": Target(page_title, check_str, ("publisher_page",), ("meta/eprints_page.html",), "html", 1),
    "meta_description": Target(meta_description, check_str, ("publisher_page",), ("meta/eprints_page.html",), "html",
                               1),
    "scrape_journal": Target(lambda d: scrape_journal(d, PAGE_URL, GENERIC_RULE), check_record, ("publisher_page",),
                             ("meta/highwire_page.html",), "html", 1),
    "scrape_webpage": Target(lambda d: scrape_webpage(d, PAGE_URL, None), check_webpage, ("publisher_page",),
                             ("meta/highwire_page.html",), "html", 1),
    "parse_pubmed_html": Target(parse_pubmed_html, check_record, (), ("pubmed/article_page.html",), "html", 1),
    "extract_pdf": Target(lambda d: extract_pdf(d, max_pages=2, time_limit=20.0), check_pdf, ("pdf",), (), "pdf", 1,
                          text=False),
}

XMP_SEED = (b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF '
            b'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" '
            b'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">A title'
            b'</rdf:li></rdf:Alt></dc:title><dc:subject><rdf:Bag><rdf:li>proteins</rdf:li><rdf:li>alignment</rdf:li>'
            b'</rdf:Bag></dc:subject><dc:description><rdf:Alt><rdf:li xml:lang="x-default">An abstract.</rdf:li>'
            b'</rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>')


class Seeds(dict):
    """The seed documents by target; a short repr, as Hypothesis prints arguments of a falsifying example."""

    def __repr__(self) -> str:
        return f"<seeds: {sum(len(v) for v in self.values())} documents>"


@pytest.fixture(scope="module")
def seeds(request: pytest.FixtureRequest) -> Seeds:
    """Seed documents per target: tests/data/documents, plus the corpus when it is there."""
    corpus: dict[str, list[bytes]] = {}
    try:
        corpus_dir: Path = request.getfixturevalue("corpus_dir")
        manifest = request.getfixturevalue("corpus_manifest")
    except pytest.skip.Exception:
        corpus_dir, manifest = None, []  # type: ignore[assignment]
    for entry in manifest:
        body = entry.get("body")
        if body and entry.get("status") == 200 and corpus_dir is not None:
            path = corpus_dir / body
            if path.is_file() and (entry["resource"] != "pdf" or path.stat().st_size < 600_000):
                corpus.setdefault(entry["resource"], []).append(path.read_bytes())
    out = Seeds()
    for name, target in TARGETS.items():
        found = [(DOCS / d).read_bytes() for d in target.docs]
        for resource in target.corpus:
            found.extend(corpus.get(resource, []))
        if name == "parse_xmp":
            found.append(XMP_SEED)
        if target.kind == "html":
            found = [f[:HTML_CROP] for f in found]
        out[name] = found
    return out


# ---------------------------------------------------------------------------------------------------- mutations

TOKENS = [b"<", b">", b"&", b"&amp;", b"&#0;", b"&#xD800;", b"&#1114112;", b"&nosuch;", b"]]>", b"<!--", b"-->",
          b"<![CDATA[", b"<!DOCTYPE x [<!ENTITY e 'x'>]>", b'"', b"'", b"\x00", b"\xff\xfe", b"\xef\xbb\xbf",
          b"\xc3", b"\xed\xa0\x80", b"{", b"}", b"[", b"]", b":", b",", b"null", b"true", b"1e999", b"-0",
          b"99999999999999999999999", b'"\\u0000"', b'"\\ud800"', b"</", b"<p>", b"<div>" * 40, b"<script>",
          b"</html>", b"<meta name='citation_title' content='", b"<meta name=citation_doi content=10.1000/x>",
          b"\n", b"\r", b"\t", "é".encode(), "\u202e".encode(), "\u00a0".encode(), b"%PDF-1.4", b"obj", b"endobj",
          b"stream", b"endstream", b"/Length 999999999", b"xref", b"trailer", b"<<", b">>", b"0 0 R"]

byte_ops = st.lists(st.tuples(st.sampled_from(["delete", "duplicate", "insert", "replace", "truncate", "flip"]),
                              st.floats(0, 1), st.floats(0, 1),
                              st.one_of(st.sampled_from(TOKENS), st.binary(max_size=12))), max_size=6)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
              st.text(max_size=20), st.sampled_from(["PMC", "10.", "Y", "N", "", "2020-13-45", "MED", "31114920"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)


def mutate_bytes(data: bytes, ops: list[tuple[str, float, float, bytes]]) -> bytes:
    out = bytearray(data)
    for op, where, size, payload in ops:
        at = int(where * len(out))
        span = max(1, int(size * size * len(out) / 4))  # mostly small spans, sometimes a quarter of the document
        if op == "delete":
            del out[at:at + span]
        elif op == "duplicate":
            out[at:at] = out[at:at + span]
        elif op == "insert":
            out[at:at] = payload
        elif op == "replace":
            out[at:at + len(payload)] = payload
        elif op == "truncate":
            del out[at:]
        elif out:
            out[min(at, len(out) - 1)] ^= 1 << int(size * 7)
    return bytes(out)


def mutate_json(data: bytes, draw: st.DrawFn) -> bytes:
    try:
        doc = json.loads(data)
    except ValueError:
        return data
    slots: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            slots.append((node, key))
            walk(value)

    walk(doc)
    if not slots:
        return json.dumps(draw(json_values)).encode()
    for _ in range(draw(st.integers(1, 4))):
        node, key = slots[draw(st.integers(0, len(slots) - 1))]
        node[key] = draw(json_values)
    return json.dumps(doc).encode()


def mutate_xml(data: bytes, draw: st.DrawFn) -> bytes:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError:
        return data
    elements = [e for e in root.iter() if isinstance(e.tag, str)]
    for _ in range(draw(st.integers(1, 4))):
        el = elements[draw(st.integers(0, len(elements) - 1))]
        action = draw(st.sampled_from(["remove", "duplicate", "text", "attribute", "hoist", "empty"]))
        parent = el.getparent()
        if action == "remove" and parent is not None:
            parent.remove(el)
        elif action == "duplicate" and parent is not None:
            parent.append(copy.deepcopy(el))
        elif action == "text":
            el.text = draw(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=30))
        elif action == "attribute":
            el.set(draw(st.sampled_from(["pub-id-type", "IdType", "MajorTopicYN", "UI", "lang", "id"])),
                   draw(st.sampled_from(["pmid", "pmc", "doi", "Y", "", "x" * 50])))
        elif action == "hoist" and parent is not None:
            root.append(el)
        elif action == "empty":
            for child in list(el):
                el.remove(child)
        elements = [e for e in root.iter() if isinstance(e.tag, str)]
    return etree.tostring(root)


@st.composite
def documents(draw: st.DrawFn, seed_docs: list[bytes], kind: str) -> bytes:
    data = draw(st.sampled_from(seed_docs))
    if kind == "json" and draw(st.booleans()):
        data = mutate_json(data, draw)
    elif kind == "xml" and draw(st.booleans()):
        data = mutate_xml(data, draw)
    return mutate_bytes(data, draw(byte_ops))


# ---------------------------------------------------------------------------------------------------- the property


EXAMPLES = 30
PDF_EXAMPLES = 8  # each one starts a worker process and reads a real article
FUZZED = [name for name in TARGETS if name != "extract_pdf"]


def check_one(name: str, seeds: dict[str, list[bytes]], data: st.DataObject) -> None:
    target = TARGETS[name]
    if not seeds[name]:  # Hypothesis re-raises pytest's skip at once
        pytest.skip(f"no seed document for {name}: its seeds are recorded responses of ../shared/corpus, absent here")
    doc = data.draw(documents(seeds[name], target.kind))
    value: bytes | str = doc.decode("utf-8", "replace") if target.text and data.draw(st.booleans()) else doc
    try:
        result = target.parse(value)
    except ValueError:
        return
    target.check(result)


@pytest.mark.parametrize("name", FUZZED)
@settings(database=None, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
          max_examples=EXAMPLES)
@given(data=st.data())
def test_parser_returns_its_type_or_raises_value_error(name: str, seeds: dict[str, list[bytes]], data: st.DataObject):
    for _ in range(TARGETS[name].per_example):
        check_one(name, seeds, data)


@settings(database=None, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
          max_examples=PDF_EXAMPLES)
@given(data=st.data())
def test_pdf_extraction_returns_pdf_content_for_mutated_pdfs(seeds: dict[str, list[bytes]], data: st.DataObject):
    check_one("extract_pdf", seeds, data)


@pytest.mark.parametrize("name", TARGETS)
def test_unmutated_seeds_parse(name: str, seeds: dict[str, list[bytes]]):
    """The seeds themselves are good documents: each parses to a result of the right type."""
    target = TARGETS[name]
    for doc in seeds[name][:3]:
        result = target.parse(doc)
        target.check(result)
