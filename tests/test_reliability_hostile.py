"""Hostile content through the real parsers: XML that tries to read files or reach the network, entity-expansion
bombs, HTML built to exhaust the tree builder, PDFs that never finish, JSON nested past the recursion limit, and YAML
rule files that try to run code.

What must hold: no entity is expanded and nothing outside the document is read (the loopback server that hosts the
external DTDs and entities sees no request, the secret file's content never shows up), only ValueError escapes, and
every call ends in bounded time -- the PDF because its worker is killed at the time limit. Time limits here are
deliberately generous (a hang or an exponential blow-up, not a slow machine, is what they catch).
"""

from __future__ import annotations

import multiprocessing
import time
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pubfetch.extract.annotations import parse_annotations
from pubfetch.extract.article import read_article
from pubfetch.extract.clean import clean_html, parse_html
from pubfetch.extract.europepmc import parse_search, parse_search_json, parse_search_xml
from pubfetch.extract.jats import parse_jats
from pubfetch.extract.meta import parse_meta
from pubfetch.extract.pdf import extract_pdf, parse_xmp
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.pubmed_html import parse_pubmed_html
from pubfetch.extract.unpaywall import parse_unpaywall
from pubfetch.rules import RuleError, ScrapingRules
from support.depwords import yaml_problem
from support.loopback import LoopbackServer, Reply
from support.pdfs import PAGE_TREE, pdf_of, stream
from support.waits import within

SECRET = "TOP-SECRET-7f3a9c"
DEADLINE_S = 60.0


# ------------------------------------------------------------------------------------------------------------ XML


def pubmed_doc(text: str) -> str:
    return (f"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>123</PMID><Article><ArticleTitle>{text}"
            f"</ArticleTitle><Abstract><AbstractText>{text}</AbstractText></Abstract></Article></MedlineCitation>"
            f"</PubmedArticle></PubmedArticleSet>")


def jats_doc(text: str) -> str:
    return (f'<article xmlns:xi="http://www.w3.org/2001/XInclude"><front><article-meta><article-id pub-id-type="pmid">'
            f"123</article-id><title-group><article-title>{text}</article-title></title-group><abstract><p>{text}</p>"
            f"</abstract></article-meta></front><body><sec><p>{text}</p></sec></body></article>")


def search_doc(text: str) -> str:
    return (f"<responseWrapper><hitCount>1</hitCount><resultList><result><id>123</id><source>MED</source>"
            f"<pmid>123</pmid><title>{text}</title><abstractText>{text}</abstractText></result></resultList>"
            f"</responseWrapper>")


def annotations_doc(text: str) -> str:
    return (f"<articles><article><source>MED</source><extId>123</extId><annotations><annotation><exact>{text}</exact>"
            f"<tags><tag><name>{text}</name><uri>http://www.ebi.ac.uk/efo/EFO_0000000</uri></tag></tags>"
            f"<type>Experimental Methods</type></annotation></annotations></article></articles>")


def xmp_doc(text: str) -> str:
    return ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">'
            f"{text}</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>")


PARSERS: dict[str, tuple[Callable[[str], str], Callable[[bytes], Any], str]] = {
    "pubmed": (pubmed_doc, parse_pubmed_xml, "PubmedArticleSet"),
    "jats": (jats_doc, parse_jats, "article"),
    "europepmc_search": (search_doc, parse_search_xml, "responseWrapper"),
    "annotations": (annotations_doc, parse_annotations, "articles"),
    "xmp": (xmp_doc, parse_xmp, "x:xmpmeta"),
}


@pytest.fixture(scope="module")
def dtd_server():
    """Hosts the external DTDs and entities a hostile document points at; it must never be asked."""
    with LoopbackServer({"/*": Reply(200, '<!ENTITY evil "FETCHED-FROM-NETWORK">', "application/xml-dtd")}) as s:
        yield s


@pytest.fixture(scope="module")
def secret_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("secret") / "secret.txt"
    path.write_text(SECRET)
    return path


def external_entity_documents(root: str, body: Callable[[str], str], server: LoopbackServer,
                              secret: Path) -> dict[str, str]:
    """The ways a document can try to reach outside itself."""
    file_url, dtd = secret.as_uri(), server.url("/external.dtd")
    return {
        "file entity": (f'<!DOCTYPE {root} [<!ENTITY secret SYSTEM "{file_url}">]>'
                        + body("before &secret; after")),
        "network entity": (f'<!DOCTYPE {root} [<!ENTITY remote SYSTEM "{server.url("/entity")}">]>'
                           + body("before &remote; after")),
        "parameter entity": (f'<!DOCTYPE {root} [<!ENTITY % pe SYSTEM "{server.url("/pe.dtd")}"> %pe;]>'
                             + body("before &evil; after")),
        "external DTD": f'<!DOCTYPE {root} SYSTEM "{dtd}">' + body("before &evil; after"),
        "public DTD": f'<!DOCTYPE {root} PUBLIC "-//X//DTD X//EN" "{dtd}">' + body("before after"),
        "XInclude": body(f'before <xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="{file_url}" '
                         f'parse="text"/> after'),
        "stylesheet processing instruction": (f'<?xml version="1.0"?><?xml-stylesheet href="{file_url}"?>'
                                              + body("before after")),
    }


@pytest.mark.parametrize("kind", PARSERS)
def test_external_entities_and_dtds_are_never_resolved(kind, dtd_server, secret_file):
    body, parse, root = PARSERS[kind]
    before = dtd_server.count()
    for case, doc in external_entity_documents(root, body, dtd_server, secret_file).items():
        for data in (doc, doc.encode("utf-8")) if kind != "xmp" else (doc.encode("utf-8"),):  # XMP is bytes
            try:
                result = within(DEADLINE_S, lambda data=data: parse(data))
            except ValueError:
                continue  # refused as a whole is fine too; what matters is that nothing was read
            text = repr(result)
            assert SECRET not in text, (kind, case)
            assert "FETCHED-FROM-NETWORK" not in text, (kind, case)
            assert "before" in text, (kind, case, text[:300])  # the document itself was read
    assert dtd_server.count() == before  # no DTD or entity was fetched


def billion_laughs(levels: int) -> str:
    entities = '<!ENTITY lol0 "lol">' + "".join(
        f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, levels + 1))
    return entities


@pytest.mark.parametrize("kind", PARSERS)
@pytest.mark.parametrize("bomb", ["billion laughs", "small laughs", "quadratic blowup"])
def test_entity_expansion_bombs_are_not_expanded(kind, bomb):
    body, parse, root = PARSERS[kind]
    if bomb == "billion laughs":  # 10^9 "lol"s, 3 GB expanded
        doc = f"<!DOCTYPE {root} [{billion_laughs(9)}]>" + body("A &lol9; B")
        expanded = 3 * 10**9
    elif bomb == "small laughs":  # 3,000 characters: below any amplification limit, still not expanded
        doc = f"<!DOCTYPE {root} [{billion_laughs(3)}]>" + body("A &lol3; B")
        expanded = 3000
    else:  # one 100 kB entity referenced 20,000 times: 2 GB expanded from a 160 kB document
        doc = f'<!DOCTYPE {root} [<!ENTITY a "{"a" * 100_000}">]>' + body("A " + "&a;" * 20_000 + " B")
        expanded = 2 * 10**9
    started = time.monotonic()
    try:
        result = within(DEADLINE_S, lambda: parse(doc.encode("utf-8")))
    except ValueError:
        return
    text = repr(result)
    assert "lollol" not in text and "a" * 1000 not in text
    assert len(text) < min(expanded, len(doc) * 4)
    assert time.monotonic() - started < DEADLINE_S


def test_xml_parsers_refuse_deep_nesting_without_recursion_errors():
    doc = pubmed_doc("<b>" * 100_000 + "x" + "</b>" * 100_000)
    for parse in (parse_pubmed_xml, parse_jats, parse_search_xml, parse_annotations):
        try:
            within(DEADLINE_S, lambda parse=parse: parse(doc))
        except ValueError:
            pass


# ----------------------------------------------------------------------------------------------------------- JSON


@pytest.mark.parametrize("parse", [parse_search_json, parse_search, parse_unpaywall, parse_annotations])
@pytest.mark.parametrize("doc", ["[" * 200_000, '{"a":' * 200_000, "1" * 100_000, '"\\ud800"', "\x00" * 10])
def test_json_nested_past_the_recursion_limit_or_huge_numbers_are_value_errors(parse, doc):
    with pytest.raises(ValueError):
        within(DEADLINE_S, lambda: parse(doc))


# ----------------------------------------------------------------------------------------------------------- HTML

N_TAGS = 10_000
HTML_BOMBS = {
    "100,000 attributes": ("<html><head><title>t</title><meta name='citation_title' content='Real title' "
                           + " ".join(f"a{i}='{i}'" for i in range(50_000)) + "></head><body><div "
                           + " ".join(f"b{i}=x" for i in range(50_000)) + "><p>body text</p></div></body></html>"),
    f"{N_TAGS} nested divs": ("<html><head><title>t</title></head><body>" + "<div>" * N_TAGS + "<p>deep text</p>"
                              + "</div>" * N_TAGS + "</body></html>"),
    f"{3 * N_TAGS // 2} unclosed inline tags": "<html><body>" + "<span><b><i>" * (N_TAGS // 2) + "deep text",
    f"{N_TAGS} meta tags": ("<html><head>" + "<meta name='citation_keywords' content='k'>" * N_TAGS
                            + "</head><body><p>text</p></body></html>"),
    "a million '<'": "<" * 1_000_000,
    "a 5 MB attribute": "<html><head><meta name='citation_abstract' content='" + "a" * 5_000_000 + "'></head></html>",
    "a million entities": "<p>" + "&amp;&#x41;&nbsp;&bogus;" * 250_000 + "</p>",
}
HTML_PARSERS: dict[str, Callable[[str], Any]] = {
    "clean_html": lambda html: clean_html(html, "https://publisher.example/a", publication=True),
    "parse_meta": lambda html: parse_meta(html, "https://publisher.example/a"),
    "read_article": lambda html: read_article(html, parse_html(html), "https://publisher.example/a"),
    "parse_pubmed_html": parse_pubmed_html,
}


@pytest.mark.parametrize("bomb", HTML_BOMBS)
def test_hostile_html_is_bounded_in_time_and_memory(bomb):
    html = HTML_BOMBS[bomb]
    for name, parse in HTML_PARSERS.items():
        if name == "clean_html":
            continue  # below, with its memory measured
        try:
            within(DEADLINE_S, lambda parse=parse: parse(html))
        except ValueError:
            assert name == "parse_pubmed_html"  # "no PubMed article on the page"
    # memory, measured on the cleaner (the biggest tree): linear in the page -- BeautifulSoup keeps up to ~150 bytes
    # of Python objects per byte of a tag-dense page
    tracemalloc.start()
    try:
        within(DEADLINE_S, lambda: HTML_PARSERS["clean_html"](html))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * len(html) + 20_000_000, peak


def test_deep_html_keeps_its_text():
    html = HTML_BOMBS[f"{N_TAGS} nested divs"]
    assert "deep text" in within(DEADLINE_S, lambda: clean_html(html))
    assert parse_meta(HTML_BOMBS["100,000 attributes"], "https://publisher.example/a").title == "Real title"


# ------------------------------------------------------------------------------------------------------------ PDF


def exponential_forms_pdf(depth: int = 40) -> bytes:
    """Form XObject i draws form i+1 twice: 2^40 form invocations from a 7 kB file, and no cycle for a guard to see."""
    objects = [*PAGE_TREE,
               (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /XObject << /F0 5 0 R >> >> >>"),
               stream(b"/F0 Do")]
    for i in range(depth):
        if i < depth - 1:
            resources = b"/Resources << /XObject << /F%d %d 0 R >> >> " % (i + 1, 6 + i)
            objects.append(stream(b"/F%d Do /F%d Do" % (i + 1, i + 1),
                                  b"/Type /XObject /Subtype /Form /BBox [0 0 10 10] " + resources))
        else:
            objects.append(stream(b"q Q", b"/Type /XObject /Subtype /Form /BBox [0 0 10 10] "))
    return pdf_of(objects)


def operator_bomb_pdf() -> bytes:
    """A 78 kB file whose compressed page content unpacks to 20 million graphics operators (minutes of work)."""
    content = zlib.compress(b"q Q " * 20_000_000, 9)
    return pdf_of([*PAGE_TREE,
                   b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << >> >>",
                   stream(content, b"/Filter /FlateDecode ")])


def self_referencing_pdf() -> bytes:
    """A page tree whose Kids point back at the parent, and a form that draws itself."""
    return pdf_of([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
                   (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                   b"/Resources << /XObject << /Fm 5 0 R >> >> >>"),
                   stream(b"/Fm Do BT (text) Tj ET"),
                   stream(b"/Fm Do", b"/Type /XObject /Subtype /Form /BBox [0 0 9 9] "
                                     b"/Resources << /XObject << /Fm 5 0 R >> >> ")])


@pytest.mark.slow
@pytest.mark.parametrize("make", [exponential_forms_pdf, operator_bomb_pdf], ids=["forms", "operators"])
def test_pdf_that_never_finishes_is_killed_at_its_time_limit(make):
    from pubfetch.extract.pdf import extract_with_pdfminer

    pdf = make()
    assert len(pdf) < 100_000
    started = time.monotonic()
    # pdfminer.six, which spins on these files (PDFium gets through the operator bomb in a second): the time limit
    # must stop it
    result = extract_pdf(pdf, time_limit=3.0, worker=extract_with_pdfminer)
    elapsed = time.monotonic() - started
    assert (result.error_kind, result.error) == ("timeout", "PDF extraction exceeded the time limit of 3 s")
    assert elapsed < 3.0 + 10.0
    deadline = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in multiprocessing.active_children() if p.name == "pubfetch-pdf"]


def test_self_referencing_pdf_ends_without_a_crash():
    result = extract_pdf(self_referencing_pdf(), time_limit=30.0)
    assert result.error_kind in (None, "broken")
    assert result.pages <= 2


# ----------------------------------------------------------------------------------------------------------- YAML

YAML_ATTACKS = {
    "python object as a site": ("'^https?://example\\.org/': !!python/object/apply:os.system ['touch {marker}']\n",
                                ("rules.yaml:1: the site name of a regex must be a "
                                "string, not a sequence (quote it)")),
    "python object scalar": ("'^https?://example\\.org/': !!python/object:os.system 'x'\n",
                             "rules.yaml:1: cannot read value: {problem}"),
    "python name": ("'^https?://example\\.org/': !!python/name:os.system\n",
                    "rules.yaml:1: cannot read value: {problem}"),
    "python object as a selector": (("'^x': example\n---\nexample:\n  title: !!python/object/new:os.system "
                                    "['touch {marker}']\n"),
                                    "rules.yaml:4, key 'title': value must be a non-empty string"),
    "python object as a key": ("? !!python/object/apply:os.system ['touch {marker}']\n: example\n",
                               "rules.yaml:1: a regex must be a string, not a sequence (quote it)"),
    "whole document": ("!!python/object/apply:os.system ['touch {marker}']\n",
                       "rules.yaml:1: the regex section (section 1) must be a mapping (key: value lines)"),
    "alias bomb": ("a: &a ['x','x','x','x','x','x','x','x','x']\n"
                   + "".join(f"{c}: &{c} [{', '.join(f'*{p}' for _ in range(9))}]\n"
                             for p, c in zip("abcdefgh", "bcdefghi", strict=True)),
                   "rules.yaml:2: YAML syntax error: aliases (*a) are not accepted in this file"),
}


@pytest.mark.parametrize("attack", YAML_ATTACKS)
def test_rule_files_are_loaded_safely(attack, tmp_path):
    marker = tmp_path / "pwned"
    text, message = YAML_ATTACKS[attack]
    rules = tmp_path / "rules.yaml"
    rules.write_text(text.replace("{marker}", str(marker)))
    with pytest.raises(RuleError) as caught:
        within(DEADLINE_S, lambda: ScrapingRules().add_journals_file(rules))
    # {problem}: PyYAML's own words for the tag it refuses, asked of PyYAML (tests/support/depwords.py)
    message = message.replace("{problem}", yaml_problem(text)) if "{problem}" in message else message
    assert str(caught.value) == f"scraping rules {tmp_path}/{message}"
    assert "\n" not in str(caught.value)
    assert not marker.exists()
