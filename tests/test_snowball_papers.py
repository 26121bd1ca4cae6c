"""Each paper of a snowball once, whatever form of its ID it is met by."""

from __future__ import annotations

from pubfetch.ids import PublicationIds
from pubfetch.snowball import PaperIndex


def test_a_paper_met_by_two_forms_of_its_id_is_one_paper_once_its_forms_are_known() -> None:
    index = PaperIndex()
    by_pmid, new = index.add(PublicationIds(pmid="123"))
    by_doi, also_new = index.add(PublicationIds(doi="10.1/x"))
    assert new and also_new and len(index) == 2
    joined = index.learn(by_pmid, PublicationIds(pmid="123", pmcid="PMC5", doi="10.1/X"))
    assert index.same(joined, by_doi) and len(index) == 1
    assert index.ids(by_doi) == PublicationIds("123", "PMC5", "10.1/x")
    assert index.add(PublicationIds(pmcid="PMC5")) == (joined, False)
    assert index.roots([by_doi, by_pmid]) == [joined]
