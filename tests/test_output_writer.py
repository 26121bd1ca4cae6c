"""Writing entries: PubFetcher's JSON document (byte for byte ``json.dumps``), JSON Lines that read back, text with its
separators and one-line layouts, the HTML document, and the writer's refusals (kinds out of order, a closed writer,
an unknown format)."""

from __future__ import annotations

import io
import json

import pytest

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import Publication, Webpage
from pubfetch.output.common import select_parts, version_info
from pubfetch.output.jsonform import entry_json
from pubfetch.output.writer import EntryWriter, format_entries, jsonl_line, kind_of, write_entries
from support.entries import entries_document, publications, webpages_and_docs


@pytest.fixture(scope="module")
def doc() -> dict:
    return entries_document()


@pytest.fixture(scope="module")
def pubs() -> list[Publication]:
    return publications()


@pytest.fixture(scope="module")
def pages() -> tuple[list[Webpage], list[Webpage]]:
    return webpages_and_docs()


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


def test_html_document_and_separator(pubs) -> None:
    out = format_entries(pubs[1:], fmt="html", plain=True, parts=["title", "abstract"])
    assert out == ("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>pubfetch</title>\n</head>\n"
                   "<body>\n<p>A short title from meta tags</p>\n\n<p>A short description from og:description.</p>\n"
                   "\n<hr>\n\n<p></p>\n\n<p></p>\n</body>\n</html>\n")
    bare = format_entries(pubs[2:], fmt="html", plain=True, parts=["pmid"], html_document=False)
    assert bare == ('<table border="1">\n<tr><td><a href="https&#58;&#47;&#47;www&#46;ncbi&#46;nlm&#46;nih&#46;gov'
                    '&#47;pubmed&#47;&#63;term&#61;26037986">26037986</a></td><td></td><td></td></tr>\n</table>\n')


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


def test_kind_of_an_entry() -> None:
    assert kind_of(Publication()) == "publication" and kind_of(Webpage()) == "webpage"


def test_write_entries_writes_what_format_entries_returns(pubs, pages) -> None:
    out = io.StringIO()
    write_entries(out, pubs, pages[0], pages[1], fmt="jsonl")
    assert out.getvalue() == format_entries(pubs, pages[0], pages[1], fmt="jsonl")


def test_the_writer_writes_entries_one_by_one_as_the_whole_document(pubs, pages) -> None:
    out = io.StringIO()
    with EntryWriter(out, "json", argv=["-out"]) as w:
        w.write_all(pubs)
        w.write(pages[0][0])
        w.write(pages[1][0], "doc")
    assert out.getvalue() == format_entries(pubs, pages[0][:1], pages[1][:1], fmt="json", argv=["-out"])
