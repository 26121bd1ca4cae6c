"""Merging a parsed record into a publication (pubfetch.model.merge) and the per-fetch flags of a publication's state."""

from __future__ import annotations

import pytest

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import ArticleRecord, MeshTerm, PartName, PartType, Publication, apply_record
from pubfetch.resources.pubstate import PubFlag, PubState

ARGS = FetcherArgs()
URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi?db=pubmed&id=29915538"


def record() -> ArticleRecord:
    return ArticleRecord(pmid="29915538", doi="10.3389/fphar.2018.00576", title="Drug repurposing: a review",
                         keywords=["repurposing", "drugs"], mesh=[MeshTerm("Humans", True, "D006801")],
                         journal_title="Frontiers in pharmacology", pub_date="2018-06-04", pages="576")


def test_a_record_is_merged_under_the_part_rules() -> None:
    pub = Publication(clock=lambda: 0)
    changed = apply_record(pub, record(), PartType.pubmed_xml, URL, ARGS)
    assert changed == [PartName.pmid, PartName.doi, PartName.title, PartName.keywords, PartName.mesh]
    assert (pub.pmid.content, pub.doi.content, pub.title.content) == (
        "29915538", "10.3389/FPHAR.2018.00576", "Drug repurposing: a review")  # DOIs are kept upper-cased
    assert pub.title.type is PartType.pubmed_xml and pub.title.url == URL
    # a weaker source does not overwrite; the same source again changes nothing
    weaker = ArticleRecord(title="Something else")
    assert apply_record(pub, weaker, PartType.link, "https://example.org/", ARGS) == []
    assert apply_record(pub, record(), PartType.pubmed_xml, URL, ARGS) == []
    assert pub.title.content == "Drug repurposing: a review"


def test_a_part_missing_from_the_type_map_and_parts_not_asked_for_are_not_set() -> None:
    pub = Publication(clock=lambda: 0)
    changed = apply_record(pub, record(), {PartName.pmid: PartType.doi, PartName.title: PartType.doi}, URL, ARGS,
                           parts=frozenset({PartName.keywords}))
    assert changed == [PartName.pmid]
    assert pub.title.is_empty() and pub.doi.is_empty() and pub.keywords.is_empty()


def test_pub_flags_are_enum_members_and_a_misspelt_one_is_refused() -> None:
    state = PubState(Publication())
    state.set(PubFlag.EPMC_PMID, "pubmed_xml")
    assert state.flags == {PubFlag.EPMC_PMID, PubFlag.PUBMED_XML}
    assert state.has("epmc_pmid") and state.has(PubFlag.PUBMED_XML) and not state.has(PubFlag.DOI)
    with pytest.raises(ValueError, match="pubmed_xlm"):
        state.set("pubmed_xlm")
    assert len(PubFlag) == 37  # 26, the scholarly APIs' 10, and MINED_TERMS (the other annotation types taken)
