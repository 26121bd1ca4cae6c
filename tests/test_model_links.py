"""The links part: its JSON (camelCase, read back), its place among the rich parts, an entry written before it, and
its cap (``max_text_links``) when a fetched publication is fitted to the caps."""

from __future__ import annotations

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import PartType
from pubfetch.model.caps import fit_entry
from pubfetch.model.links import TextLink
from pubfetch.model.publication import Publication
from pubfetch.model.rich import RichName

LINK = TextLink("pdb", "1ABC", "pdb", ("Methods", "Structures"), "We used PDB 1ABC.", marked=True)


def test_a_link_is_written_in_camel_case_and_read_back() -> None:
    assert LINK.to_json() == {"kind": "pdb", "value": "1ABC", "registry": "pdb",
                              "sectionPath": ["Methods", "Structures"], "sentence": "We used PDB 1ABC.",
                              "marked": True}
    assert TextLink.from_json(LINK.to_json()) == LINK
    assert TextLink.from_json({"kind": "url", "value": "http://x", "sectionPath": "not a list", "marked": "yes"}) == \
        TextLink("url", "http://x")


def test_the_links_part_goes_through_the_publications_json() -> None:
    pub = Publication()
    pub.set_pmid("1", PartType.pubmed_xml, "", FetcherArgs())
    assert pub.set_rich(RichName.links, [LINK], PartType.europepmc_xml, "https://x/fulltextXML")
    doc = pub.to_json(FetcherArgs())
    assert doc["links"]["list"] == [LINK.to_json()] and doc["links"]["size"] == 1
    assert Publication.from_json(pub.to_json(computed=False)).links.items == [LINK]
    del doc["links"]  # an entry of a pubfetch before the part
    assert Publication.from_json(doc).links.is_empty()


def test_links_over_the_cap_keep_their_first_ones() -> None:
    pub = Publication()
    pub.set_pmid("1", PartType.pubmed_xml, "", FetcherArgs())
    links = [TextLink("geo", f"GSE{i}", "geo", (), f"At GSE{i}.") for i in range(1, 2_501)]
    pub.set_rich(RichName.links, links, PartType.europepmc_xml, "u")
    fitting = fit_entry(pub, 10_000, 20 * 1024 * 1024, 2_000)
    assert fitting.links is not None and (fitting.links.had, fitting.links.kept) == (2_500, 2_000)
    assert pub.links.items == links[:2_000]
    assert fit_entry(pub, 10_000, 20 * 1024 * 1024, 2_000).links is None
