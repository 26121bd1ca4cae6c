"""Summaries of a run: ID lists and URL lists in every format, counts, the top hosts of the entries' final URLs and
visited sites, and the table of part types per part."""

from __future__ import annotations

import io
import json

import pytest

from pubfetch.ids import PublicationIds
from pubfetch.model import PartType, Publication, Webpage
from pubfetch.output.summary import (
    format_counts,
    format_ids,
    format_top_hosts,
    part_table,
    top_hosts,
    url_host,
    write_ids,
    write_top_hosts,
)
from support.entries import publications, webpages_and_docs


@pytest.fixture(scope="module")
def pubs() -> list[Publication]:
    return publications()


@pytest.fixture(scope="module")
def pages() -> tuple[list[Webpage], list[Webpage]]:
    return webpages_and_docs()


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


def test_write_ids_and_top_hosts_write_what_the_format_functions_return() -> None:
    ids = [PublicationIds("1", "", "10.1/x")]
    out = io.StringIO()
    write_ids(out, ids, ["https://w"], None, fmt="json")
    assert out.getvalue() == format_ids(ids, ["https://w"], None, fmt="json")
    out = io.StringIO()
    write_top_hosts(out, {"a.org": 2}, {"b.org": 1}, None)
    assert out.getvalue() == format_top_hosts({"a.org": 2}, {"b.org": 1}, None)


def test_top_hosts_keep_only_what_the_filter_accepts(pubs, pages) -> None:
    assert top_hosts([*pages[0], *pubs], keep=lambda url: "springer" in url) == {"link.springer.com": 2}


def test_top_hosts_as_text_are_host_and_count_lines_kind_after_kind() -> None:
    assert format_top_hosts({"a.org": 2, "b.org": 1}, None, {"c.org": 1}) == "a.org\t2\nb.org\t1\nc.org\t1\n"
