"""A run that neither asks for nor stores the rich parts (``--no-rich-parts``, ``rich_parts=False``) parses its answers
without them and stores none; by default they are read and stored. Refused where the run needs a reference list."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import pubfetch
from pubfetch.config import FetchConfig
from pubfetch.resources import europepmc, ncbi
from support.fetchrun import fetch_run
from support.synthetic import Article, SyntheticServices

OPEN, CLOSED = Article(0), Article(1)  # the open one's full text is Europe PMC's JATS; the closed one has PubMed XML


class RichRecords(SyntheticServices):
    """The synthetic services, where PubMed's records also list a grant and a reference, and cite a trial."""

    def pubmed_xml(self, a: Article) -> str:
        grant = "<GrantList><Grant><GrantID>R01 GM1</GrantID><Agency>NIGMS</Agency></Grant></GrantList></Article>"
        refs = ("<ReferenceList><Reference><Citation>Roe R. A paper. J Biol 2001.</Citation><ArticleIdList>"
                "<ArticleId IdType='pubmed'>11111111</ArticleId></ArticleIdList></Reference></ReferenceList>")
        return (super().pubmed_xml(a).replace("</Article>", grant, 1)
                .replace("</AbstractText>", " Registered as NCT01234567.</AbstractText>", 1)
                .replace("<PubmedData>", f"<PubmedData>{refs}", 1))


def _spied(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[object]:
    """Each ``rich_parts`` a resource module's parser is called with."""
    asked: list[object] = []
    parser: Callable[..., Any] = getattr(module, name)

    def spy(data: bytes, rich_parts: object = True, **kw: Any) -> Any:
        asked.append(rich_parts)
        return parser(data, rich_parts=rich_parts, **kw)
    monkeypatch.setattr(module, name, spy)
    return asked


@pytest.mark.parametrize("rich", [True, False])
def test_the_rich_parts_are_parsed_and_stored_only_when_the_run_keeps_them(tmp_path: Path, rich: bool,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    pubmed = _spied(monkeypatch, ncbi, "parse_pubmed_xml")
    jats = _spied(monkeypatch, europepmc, "parse_jats")
    db = tmp_path / "r.db"
    pubs = fetch_run(RichRecords(2), rich_parts=rich).fetch([OPEN.pmid, CLOSED.pmid], db=str(db))
    open_pub, closed_pub = sorted(pubs, key=lambda p: p.pmid.content)
    assert pubmed and set(pubmed) == {rich} and jats and set(jats) == {rich}
    # the parts asked for come either way
    assert closed_pub.title.content and closed_pub.abstract.content and open_pub.fulltext.content
    kept = {"funding": bool(closed_pub.funding.items), "references": bool(closed_pub.references.items),
            "links": bool(closed_pub.links.items), "full text references": bool(open_pub.references.items),
            "sections": bool(open_pub.sections.items)}
    assert kept == dict.fromkeys(kept, rich)
    with pubfetch.open_store(str(db)) as store:
        stored = store.get_publication(pubfetch.PublicationIds(pmid=CLOSED.pmid))
    assert stored is not None and bool(stored.references.items) is rich


def test_asking_europe_pmc_for_references_without_the_rich_parts_is_refused() -> None:
    with pytest.raises(ValueError, match="--no-rich-parts"):
        FetchConfig().with_options({"references": True, "rich_parts": False}, "test")


def test_a_snowball_along_references_without_the_rich_parts_is_refused_before_any_request(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="rich_parts=False"):
        list(pubfetch.fetch_many(["12345"], db=str(tmp_path / "s.db"), expand_references=True, rich_parts=False))


def test_the_command_line_refuses_references_without_the_rich_parts_in_one_line(cli, env) -> None:
    code, _, err = cli("-pub", "123", "-fetch", "--references", "--no-rich-parts")
    assert code == 2 and "which --no-rich-parts (rich_parts = false) leaves out" in err and err.count("\n") == 1
