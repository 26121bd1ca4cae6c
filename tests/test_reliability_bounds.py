"""Bounded work for hostile input: links per page, PDF worker memory, Europe PMC paging,
``-grep`` regexes and YAML aliases. Each test feeds the hostile shape itself and checks the bound by counting work,
never by timing it."""

from __future__ import annotations

import json
import zlib

import pytest

from pubfetch.config import Endpoints, FetchConfig
from pubfetch.extract.pdf import extract_pdf
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.resources import europepmc
from pubfetch.resources.links import Links
from support.fetchrun import run_context
from support.loopback import LoopbackServer, Reply, Request
from support.pdfs import PAGE_TREE, make_pdf, pdf_of, stream
from support.synthetic import SCHOLARLY_OFF


def test_links_keep_part_type_order_and_the_better_type_of_a_repeated_url():
    links = Links()
    args = FetcherArgs()
    assert links.add("https://a.example/pdf", PartType.pdf_meta, "https://p.example/", None, args)
    assert links.add("https://b.example/page", PartType.link, "https://p.example/", None, args)
    assert links.add("https://c.example/cit", PartType.citation, "https://p.example/", None, args)
    assert links.add("https://d.example/doi", PartType.doi, "https://p.example/", None, args)  # final, after link
    assert not links.add("https://c.example/cit", PartType.meta, "https://p.example/", None, args)  # worse: kept
    assert links.add("https://a.example/pdf", PartType.pdf_citation, "https://q.example/", None, args)  # better
    assert [(link.url, link.type) for link in links] == [
        ("https://b.example/page", PartType.link),
        ("https://d.example/doi", PartType.doi),
        ("https://c.example/cit", PartType.citation),
        ("https://a.example/pdf", PartType.pdf_citation),
    ]
    assert len(links) == 4
    popped = [links.pop() for _ in range(5)]
    assert [link.url if link else None for link in popped] == [
        "https://b.example/page", "https://d.example/doi", "https://c.example/cit", "https://a.example/pdf", None]
    assert not links.add("https://b.example/page", PartType.doi, "https://p.example/", None, args)  # tried


def test_ten_thousand_citation_pdf_urls_cost_one_type_comparison_each(monkeypatch: pytest.MonkeyPatch):
    """The old sorted list compared each new link with every queued one: 10k links, 50M comparisons, 38 s."""
    calls = 0
    better = PartType.is_better_than

    def counting(self: PartType, other: PartType | None) -> bool:
        nonlocal calls
        calls += 1
        return better(self, other)

    monkeypatch.setattr(PartType, "is_better_than", counting)
    links = Links()
    args = FetcherArgs()
    for i in range(10_000):
        links.add(f"https://publisher.example/pdf/{i}.pdf", PartType.pdf_citation, "https://publisher.example/", None,
                  args)
    for i in range(10_000):  # the same URLs again (a page repeating its tags)
        links.add(f"https://publisher.example/pdf/{i}.pdf", PartType.pdf_meta, "https://publisher.example/", None,
                  args)
    assert len(links) == 10_000
    assert calls <= 10_000
    assert links.pop().url == "https://publisher.example/pdf/0.pdf"


# ------------------------------------------------------------------------------------------------ PDF worker memory


def deflate_bomb_pdf(megabytes: int) -> bytes:
    """A page whose FlateDecode content is ``megabytes`` MB of zeros (about 1/1000 of that on disk)."""
    packer = zlib.compressobj(9)
    zeros = b"\0" * (1 << 20)
    content = b"".join(packer.compress(zeros) for _ in range(megabytes)) + packer.flush()
    return pdf_of([*PAGE_TREE,
                   b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << >> >>",
                   stream(content, b"/Filter /FlateDecode ")])


def test_pdf_worker_running_out_of_its_memory_limit_is_too_large_and_ordinary_pdfs_still_extract():
    # A PDF worker's address space is about 155 MiB before its first file (mostly its threads' stacks and malloc
    # arenas, reserved rather than used): a cap a few MiB above that left PDFium's library no room to load, which is
    # not the case under test. 256 MiB leaves it room, and the page's 480 MB of content cannot fit.
    limit = 256 * 1024 * 1024
    bomb = deflate_bomb_pdf(480)
    assert len(bomb) < 600_000
    result = extract_pdf(bomb, memory_limit=limit)
    assert (result.error_kind, result.text) == ("too_large", "")
    assert "out of memory" in result.error
    ordinary = extract_pdf(make_pdf(["Hostile input stays bounded"]), memory_limit=limit)
    assert ordinary.error_kind is None
    assert "Hostile input stays bounded" in ordinary.text


# ------------------------------------------------------------------------------------------------ Europe PMC paging


def test_europepmc_paging_stops_at_the_page_cap_when_every_page_has_a_new_cursor_and_hitcount_is_huge(caplog):
    pages = iter(range(1, 10**9))

    def endless(req: Request) -> Reply:
        n = next(pages)
        body = {"hitCount": 10**12, "nextCursorMark": f"cursor{n}",
                "resultList": {"result": [{"id": str(n), "source": "MED", "pmid": str(n), "title": f"Record {n}"}]}}
        return Reply(200, json.dumps(body), "application/json")

    with LoopbackServer({"/rest/search": endless}) as server:
        cfg = FetchConfig().with_changes(**SCHOLARLY_OFF, endpoints=Endpoints(europepmc=server.base + "/rest/"))
        with run_context(cfg) as ctx:
            records, failed = europepmc.search(ctx, "(EXT_ID:1) AND SRC:MED")
    assert failed is None
    assert [r.pmid for r in records] == ["1", "2", "3", "4", "5"]
    assert len(server.requests) == europepmc.MAX_PAGES == 5
    assert [r.query["cursorMark"] for r in server.requests] == [["*"], ["cursor1"], ["cursor2"], ["cursor3"],
                                                                  ["cursor4"]]
    assert "still not complete after 5 pages (5 records of a claimed 1000000000000)" in caplog.text


# ------------------------------------------------------------------------------------------------ YAML


def test_metadata_plugin_with_an_alias_bomb_is_refused_without_expanding_it(tmp_path):
    from pubfetch.metadata.plugin import PluginError, load_plugin

    levels = "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 9))
    plugin = tmp_path / "bomb.yaml"
    plugin.write_text("id: bomb\nname: Bomb\nl0: &l0 [x, x, x, x, x, x, x, x, x]\n" + levels)
    with pytest.raises(PluginError, match=r"aliases \(\*l0\) are not accepted"):
        load_plugin(plugin)
