"""The caps of a stored entry: the reference list cut to ``max_references``, and an entry over ``max_entry_bytes``
trimmed from its largest optional parts (references, then sections, then the full text ...), never left over it; a
webpage over it keeps the start of its content."""

from __future__ import annotations

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.caps import Cut, entry_bytes, fit_entry, fit_page
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.model.rich import Reference, RichName, Section
from pubfetch.model.webpage import Webpage

MIB = 1024 * 1024


def _publication(references: int, sections: int = 0, fulltext: str = "") -> Publication:
    pub = Publication()
    pub.set_pmid("123", PartType.pubmed_xml, "u", FetcherArgs())
    pub.set_title("A paper", PartType.pubmed_xml, "u", FetcherArgs())
    pub.set_rich(RichName.references, [Reference(pmid=str(10_000_000 + i), text=f"Roe R. Cited paper {i}. " * 4)
                                       for i in range(references)], PartType.europepmc, "r")
    pub.set_rich(RichName.sections, [Section(f"S{i}", 1, "é" * 1000) for i in range(sections)], PartType.pmc_xml, "s")
    if fulltext:
        pub.set_fulltext(fulltext, PartType.pmc_xml, "f", FetcherArgs())
    return pub


def test_a_publication_within_the_caps_is_untouched() -> None:
    pub = _publication(50, 5)
    before = pub.to_json(computed=False)
    fitting = fit_entry(pub, 10_000, 20 * MIB)
    assert fitting.references is None and fitting.trimmed == [] and not fitting.still_over
    assert pub.to_json(computed=False) == before


def test_references_over_the_cap_keep_the_first_ones() -> None:
    pub = _publication(120)
    fitting = fit_entry(pub, 100, 20 * MIB)
    assert fitting.references == Cut("references", 120, 100, "references")
    assert [r.pmid for r in pub.references.items] == [str(10_000_000 + i) for i in range(100)]


def test_an_entry_over_the_size_cap_loses_references_first_and_ends_within_it() -> None:
    pub = _publication(20_000, 100)  # about 2.5 MB of references, 200 kB of sections
    assert entry_bytes(pub) > 2 * MIB
    fitting = fit_entry(pub, 100_000, MIB)
    assert MIB - 1000 < entry_bytes(pub) <= MIB  # only as much as brings it under the cap
    assert [cut.part for cut in fitting.trimmed] == ["references"]
    assert 0 < len(pub.references.items) < 20_000 and len(pub.sections.items) == 100
    assert fitting.size_before > 2 * MIB and not fitting.still_over


def test_when_references_are_not_enough_sections_then_the_full_text_go() -> None:
    pub = _publication(10, 1000, fulltext="word " * 300_000)  # 2 MB of sections (é is 2 bytes), 1.5 MB of text
    fitting = fit_entry(pub, 10_000, MIB)
    assert [(cut.part, cut.kept) for cut in fitting.trimmed[:2]] == [("references", 0), ("sections", 0)]
    assert fitting.trimmed[2].part == "full text" and 0 < fitting.trimmed[2].kept < 1_500_000
    assert entry_bytes(pub) <= MIB and pub.fulltext.content.startswith("word word")


def test_an_entry_its_untrimmable_fields_keep_over_the_cap_is_said_to_be() -> None:
    pub = _publication(0)
    pub.journal_title = "J" * (2 * MIB)
    fitting = fit_entry(pub, 10_000, MIB)
    assert fitting.still_over


def test_a_webpage_over_the_size_cap_loses_the_end_of_its_content() -> None:
    page = Webpage(start_url="https://tool.example/", title="Tool", content="Docs. " * 400_000)
    fitting = fit_page(page, MIB)
    assert [(cut.part, cut.had) for cut in fitting.trimmed] == [("content", 2_400_000)]
    assert entry_bytes(page) <= MIB and page.title == "Tool" and page.content.startswith("Docs. Docs.")
    assert not fit_page(page, MIB).trimmed  # within the cap now: untouched
