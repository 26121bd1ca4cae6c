"""The output forms (pubfetch.output): PubFetcher's JSON document, JSON Lines, text and HTML layouts, escaping, ID
lists, counts, top hosts and the part table."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.model import MeshTerm, MinedTerm, PartName, PartType, Publication, StringPart, Webpage
from pubfetch.output import html as h
from pubfetch.output import text as t
from pubfetch.output.common import is_id_only, is_one_liner, select_parts, version_info
from pubfetch.output.jsonform import entry_json
from pubfetch.output.summary import format_counts, format_ids, format_top_hosts, part_table, top_hosts, url_host
from pubfetch.output.writer import EntryWriter, format_entries, jsonl_line

FIXTURE = Path(__file__).parent / "data" / "cli" / "entries.json"


@pytest.fixture(scope="module")
def doc() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pubs(doc: dict) -> list[Publication]:
    return [Publication.from_json(p) for p in doc["publications"]]


@pytest.fixture(scope="module")
def pages(doc: dict) -> tuple[list[Webpage], list[Webpage]]:
    return [Webpage.from_json(w) for w in doc["webpages"]], [Webpage.from_json(d) for d in doc["docs"]]


# --- JSON ------------------------------------------------------------------------------------------------------------


def test_json_round_trip_of_the_model(doc: dict, pubs: list[Publication], pages) -> None:
    assert [p.to_json(FetcherArgs()) for p in pubs] == doc["publications"]
    assert [w.to_json(FetcherArgs()) for w in pages[0]] == doc["webpages"]


def test_json_document_is_byte_for_byte_json_dumps(pubs, pages) -> None:
    webs, docs = pages
    for options in ({}, {"plain": True}, {"parts": ["abstract", "pmid"]}, {"plain": True, "parts": ["doi"]}):
        text = format_entries(pubs, webs, docs, fmt="json", argv=["-out"], **options)
        expected = {"version": version_info(), "argv": ["-out"],
                    "publications": [entry_json("publication", p, None, options.get("plain", False),
                                                select_parts(options.get("parts"))) for p in pubs],
                    "webpages": [entry_json("webpage", w, None, options.get("plain", False)) for w in webs],
                    "docs": [entry_json("doc", d, None, options.get("plain", False)) for d in docs]}
        assert text == json.dumps(expected, ensure_ascii=False, indent=2) + "\n", options


def test_json_empty_arrays(pubs) -> None:
    assert json.loads(format_entries(pubs, [], None, fmt="json")).keys() == {"version", "argv", "publications"}
    kept = json.loads(format_entries([], [], None, fmt="json", omit_empty=False))
    assert list(kept) == ["version", "argv", "publications", "webpages"]
    assert kept["publications"] == kept["webpages"] == []
    assert format_entries(None, None, None, fmt="json", argv=["x"]) == json.dumps(
        {"version": version_info(), "argv": ["x"]}, indent=2) + "\n"


def test_json_keeps_non_ascii(pubs) -> None:
    assert "\u03b2-lactamase" in format_entries(pubs[:1], fmt="json")


def test_out_part_json_is_in_part_order_with_parts_metadata(pubs) -> None:
    obj = json.loads(format_entries(pubs[:1], fmt="json", parts=["fulltext", "title", "title"]))["publications"][0]
    assert list(obj) == ["title", "fulltext"]
    assert obj["title"]["type"] == "europepmc" and obj["title"]["final"] is True


def test_jsonl_lines_read_back(pubs, pages) -> None:
    out = format_entries(pubs, pages[0], pages[1], fmt="jsonl")
    lines = out.splitlines()
    assert len(lines) == 6 and "\n" not in lines[0] and ": " not in lines[2]
    assert Publication.from_json(json.loads(lines[0])).to_json() == pubs[0].to_json()
    assert Webpage.from_json(json.loads(lines[5])).to_json() == pages[1][0].to_json()
    tagged = format_entries(pubs[:1], pages[0][:1], None, fmt="jsonl", plain=True, tag_kind=True).splitlines()
    assert [json.loads(line)["kind"] for line in tagged] == ["publication", "webpage"]
    assert list(json.loads(tagged[0]))[:2] == ["kind", "pmid"]
    assert jsonl_line(pages[0][0], "doc", plain=True) == json.dumps(
        {"startUrl": pages[0][0].start_url, "title": pages[0][0].title, "content": pages[0][0].content},
        ensure_ascii=False, separators=(",", ":")) + "\n"


# --- text ------------------------------------------------------------------------------------------------------------


def test_part_text() -> None:
    part = StringPart(PartName.theAbstract, PartType.pubmed_xml, " https://x/ ", 1500, "An abstract.")
    assert t.part_text(part) == ("ABSTRACT: An abstract.\n"
                                 "    type: PubMed XML\n"
                                 "    url:  https://x/ \n"
                                 "    timestamp: 1970-01-01T00:00:01.500Z (1500)\n"
                                 "    size: 12")


def test_list_parts_as_text(pubs) -> None:
    assert pubs[0].keywords.plain() == "[literature mining; provenance; Europe PMC]"
    assert t.part_text(pubs[0].mesh).startswith("MESH TERMS: [Data Mining; Humans]\n    type: PubMed XML\n")


def test_publication_text_layout(pubs) -> None:
    text = t.publication_text(pubs[0])
    assert text.startswith("PMID: 39466770\n    type: Europe PubMed Central\n")
    assert ("\n\nFETCH TIME: 2024-10-26T07:34:31Z (1729928071000)\nRETRY COUNTER: 0\nFETCH EXCEPTION: false\n\n"
            "OPEN ACCESS: true\nPREPRINT: false\nJOURNAL TITLE: PLoS ONE\nPUB. DATE: 2024-10-28 (1730073600000)\n"
            "CITATIONS: 3 (2024-10-26T07:34:32.200Z (1729928072200))\n"
            "CORRESP. AUTHOR: Jane Q. Example, https://orcid.org/0000-0002-1825-0097, jane@example.org\n\n"
            "VISITED SITES:\nhttps://journals.plos.org/plosone/article?id=10.1371/journal.pone.0311879\n"
            "    type: doi\n    from: https://doi.org/10.1371/journal.pone.0311879\n"
            "    timestamp: 2024-10-26T07:34:36Z (1729928076000)") in text
    assert text.endswith("(1729928076000)")


def test_plain_text(pubs, pages) -> None:
    assert t.publication_plain_text(pubs[2]) == "[26037986]\n\n\n\n[]\n[]\n[]\n[]\n\n\n\n"
    assert t.webpage_plain_text(pages[1][0]) == (
        "https://pubfetcher.readthedocs.io/en/latest/cli.html\n\nCommand-line interface manual\n\n"
        "Parameters with one dash are operations; parameters with two dashes modify them. The pipeline runs in a "
        "fixed order.")


def test_text_separators_and_one_liners(pubs) -> None:
    sep = "\n -----------------------------------------------------------------------------\n\n"
    assert format_entries(pubs[1:], plain=True, parts=["title"]) == "A short title from meta tags\n\n"
    assert format_entries(pubs[1:], plain=True, parts=["abstract"]) == (
        "A short description from og:description.\n" + sep + "\n")
    assert format_entries(pubs[1:], plain=True, parts=["pmid", "doi"]) == (
        "\t\t10.1007/S00068-014-0450-3\n26037986\t\t\n")
    assert format_entries(pubs[1:], plain=True, parts=["pmid", "title"]) == (
        "\n\nA short title from meta tags\n" + sep + "26037986\n\n\n")
    assert format_entries(pubs[1:], parts=["pmid"]).count(sep) == 1


def test_one_liner_rules() -> None:
    parts = select_parts
    assert is_one_liner(parts(["title"]), True) and not is_one_liner(parts(["title"]), False)
    assert not is_one_liner(parts(["abstract"]), True) and not is_one_liner(parts(["fulltext"]), True)
    assert is_one_liner(parts(["doi", "pmcid", "pmid"]), True) and is_id_only(parts(["pmid", "pmid"]))
    assert not is_one_liner(parts(["pmid", "keywords"]), True) and not is_one_liner(None, True)
    assert parts(["theAbstract", "abstract", "pmid"]) == [PartName.theAbstract, PartName.pmid]
    with pytest.raises(ValueError, match="unknown publication part 'abstrakt'"):
        parts(["abstrakt"])


def test_ids_text() -> None:
    assert t.ids_text("1", "", "10.1/X") == "1, 10.1/X"
    assert t.ids_text("1", "", "10.1/X", tab=True) == "1\t\t10.1/X"
    assert t.ids_with_urls_text("1", "PMC2", "", "https://a", "", "") == "[1, PMC2] (https://a)"
    assert t.ids_with_urls_text("1", "PMC2", "", "https://a", "https://b", "") == "[1, PMC2] (https://a, https://b)"


# --- HTML ------------------------------------------------------------------------------------------------------------


def test_escaping() -> None:
    assert h.escape_html('<script>alert("&")</script>') == '&lt;script&gt;alert("&amp;")&lt;/script&gt;'
    assert h.escape_html_attribute('x" onload="y') == "x&#34;&#32;onload&#61;&#34;y"
    assert h.escape_html_attribute("\u00e9\u4e2d") == "\u00e9\u4e2d"
    assert h.link_html("javascript:alert(1)") == "javascript:alert(1)"
    assert h.link_html("https://a.org/?q=<b>", "<b>") == '<a href="https&#58;&#47;&#47;a&#46;org&#47;&#63;q&#61;' \
                                                         '&#60;b&#62;">&lt;b&gt;</a>'
    assert h.link_html("", "text & more") == "text &amp; more"
    assert h.link_html("https://a.org/", "") == ""
    assert h.paragraphs_html("a<b\n\nc\nd") == "<p>a&lt;b</p><p>c<br>d</p>"


def test_html_terms() -> None:
    mesh = h.part_plain_html(_list(PartName.mesh, [MeshTerm("Neoplasms", True, ""), MeshTerm("A & B", False, "D1")]))
    assert mesh == ('<a href="https&#58;&#47;&#47;www&#46;ncbi&#46;nlm&#46;nih&#46;gov&#47;mesh&#47;&#63;term&#61;'
                    '&#37;22Neoplasms&#37;22">Neoplasms*</a>; <a href="https&#58;&#47;&#47;www&#46;ncbi&#46;nlm&#46;'
                    'nih&#46;gov&#47;mesh&#47;&#63;term&#61;&#37;22D1&#37;22">A &amp; B</a>')
    mined = h.part_plain_html(_list(PartName.efo, [MinedTerm("<x>", 3, "javascript:1"), MinedTerm("y", 0, "")]))
    assert mined == "&lt;x&gt; <small>3</small>; y"
    keywords = h.part_plain_html(_list(PartName.keywords, ["a<b", "c"]))
    assert keywords == "a&lt;b; c"


def _list(name: PartName, items: list) -> object:
    pub = Publication()
    part = pub.part(name)
    part.items = items  # type: ignore[union-attr]
    return part


def test_html_webpage_escapes_everything(pages) -> None:
    page = Webpage(start_url="https://x.org/<a>", final_url="javascript:evil()", content_type="text/<html>",
                   status_code=200, license="<MIT>", language="C&C", title="<title>", content="<p>hi</p>")
    out = h.webpage_html(page)
    assert "<MIT>" not in out and "C&C" not in out and "<title>" not in out and "<p>hi</p>" not in out
    assert '<div><span>Final URL:</span> <span>javascript:evil()</span></div>' in out
    assert '<div><span>Status code:</span> <span><a href="https&#58;&#47;&#47;http&#46;cat&#47;200">200</a>' in out
    assert out.endswith("<br>\n<p>&lt;p&gt;hi&lt;/p&gt;</p>")
    assert h.webpage_plain_html(page) == ('<h2><a href="https&#58;&#47;&#47;x&#46;org&#47;&#60;a&#62;">&lt;title&gt;'
                                          '</a></h2>\n<p>&lt;p&gt;hi&lt;/p&gt;</p>')


def test_html_document_and_separator(pubs) -> None:
    out = format_entries(pubs[1:], fmt="html", plain=True, parts=["title", "abstract"])
    assert out == ("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>pubfetch</title>\n</head>\n"
                   "<body>\n<p>A short title from meta tags</p>\n\n<p>A short description from og:description.</p>\n"
                   "\n<hr>\n\n<p></p>\n\n<p></p>\n</body>\n</html>\n")
    bare = format_entries(pubs[2:], fmt="html", plain=True, parts=["pmid"], html_document=False)
    assert bare == ('<table border="1">\n<tr><td><a href="https&#58;&#47;&#47;www&#46;ncbi&#46;nlm&#46;nih&#46;gov'
                    '&#47;pubmed&#47;&#63;term&#61;26037986">26037986</a></td><td></td><td></td></tr>\n</table>\n')


# --- writer rules ----------------------------------------------------------------------------------------------------


def test_writer_refuses_kinds_out_of_order(pubs, pages) -> None:
    with pytest.raises(ValueError, match="publications must be written before webpages"), \
            EntryWriter(io.StringIO(), "json") as w:
        w.write(pages[0][0])
        w.write(pubs[0])
    w = EntryWriter(io.StringIO(), "text")
    w.close()
    with pytest.raises(ValueError, match="write to a closed EntryWriter"):
        w.write(pubs[0])
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        EntryWriter(io.StringIO(), "xml")


# --- summaries -------------------------------------------------------------------------------------------------------


def test_id_lists() -> None:
    ids = [PublicationIds("1", "", "10.1/x", "https://src", "", "https://src"), PublicationIds("", "PMC2", "")]
    assert format_ids(ids, ["https://w"], None, plain=True) == "1\t\t10.1/X\n\tPMC2\t\nhttps://w\n"
    assert format_ids(ids, [], None) == "[1, 10.1/X] (https://src, https://src)\n[PMC2] ()\n"
    html = format_ids(ids, ["https://w"], None, fmt="html", html_document=False)
    assert html.startswith("<ul>\n<li><a href=") and '<li><a href="https&#58;&#47;&#47;w">https://w</a></li>' in html
    doc = json.loads(format_ids(ids, None, ["https://d"], fmt="json", plain=True))
    assert doc["publicationIds"] == [{"pmid": "1", "pmcid": "", "doi": "10.1/X"}, {"pmid": "", "pmcid": "PMC2",
                                                                                  "doi": ""}]
    assert doc["docUrls"] == ["https://d"] and "webpageUrls" not in doc
    assert format_ids(None, ["https://w"], None, fmt="jsonl") == '"https://w"\n'


def test_counts() -> None:
    assert format_counts(3, None, 0) == "Publications : 3\nDocs         : 0\n"
    assert format_counts(1, 2, 3, what="ids") == "Publication IDs : 1\nWebpage URLs    : 2\nDoc URLs        : 3\n"


def test_top_hosts(pubs, pages) -> None:
    assert url_host("https://WWW.Example.org:8080/x") == "example.org" and url_host("not a url") == ""
    hosts = top_hosts([*pages[0], *pubs])
    assert hosts == {"link.springer.com": 2, "github.com": 1, "example.org": 1, "journals.plos.org": 1}
    assert format_top_hosts(hosts, None, {}, fmt="html", html_document=False) == (
        '<ul>\n<li value="2">link.springer.com</li>\n<li value="1">github.com</li>\n<li value="1">example.org</li>\n'
        '<li value="1">journals.plos.org</li>\n</ul>\n')
    doc = json.loads(format_top_hosts({"a.org": 2}, None, {}, fmt="json", omit_empty=False))
    assert doc["publicationTopHosts"] == [{"count": 2, "host": "a.org"}] and doc["docTopHosts"] == []


def test_part_table(pubs) -> None:
    lines = part_table(pubs).splitlines()
    assert len(lines) == 1 + len(PartType)
    assert lines[lines.index("europepmc_xml,0,0,0,0,0,0,0,0,0,1,1")] and "pdf_doi,0,0,0,0,0,0,0,0,0,0,0" in lines
