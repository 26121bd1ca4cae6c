"""What the scholarly APIs' parsers read alike (pubfetch/extract/scholarly.py): markup in JSON strings, ORCIDs, other
papers' IDs, authors by parts or undivided, and dates given as parts."""

from __future__ import annotations

from pubfetch.extract.scholarly import author, orcid_url, other_doi, other_pmcid, other_pmid, plain, set_date
from pubfetch.model.parts import Author
from pubfetch.model.record import ArticleRecord


def test_plain_drops_markup_escaped_or_not():
    assert plain("The δ<sup>13</sup>C <i>decline</i>") == "The δ 13 C decline"
    assert plain("The δ&amp;lt;sup&amp;gt;13&amp;lt;/sup&amp;gt;C") == "The δ 13 C"
    assert plain("a &lt; b and c > d") == "a < b and c > d"
    assert plain(None) == plain(3) == ""


def test_ids_of_other_papers():
    assert orcid_url("0000-0002-1825-0097") == orcid_url("http://orcid.org/0000-0002-1825-0097/") == \
        "https://orcid.org/0000-0002-1825-0097"
    assert orcid_url("") == ""
    assert other_doi("https://doi.org/10.1038/ng.3834") == "10.1038/NG.3834" and other_doi("not a doi") == ""
    assert other_pmid("https://pubmed.ncbi.nlm.nih.gov/25349395") == "25349395" and other_pmid("x1") == ""
    assert other_pmcid("https://www.ncbi.nlm.nih.gov/pmc/articles/4234579") == "PMC4234579"


def test_authors_by_parts_or_undivided():
    assert author("Jane", "Doe", "https://orcid.org/1", ["Lab"]) == Author(given="Jane", family="Doe",
                                                                          orcid="https://orcid.org/1",
                                                                          affiliations=["Lab"])
    assert author("", "", name="The GTEx Consortium") == Author(literal="The GTEx Consortium")
    assert author("", "", name="Eleftherios Makris") == Author(family="Makris", given="Eleftherios")
    assert author("", "") is None


def test_dates_by_parts():
    whole, month, year, bad = ArticleRecord(), ArticleRecord(), ArticleRecord(), ArticleRecord()
    set_date(whole, 2014, 10, 27)
    set_date(month, 1997, 7)
    set_date(year, 2016)
    set_date(bad, 2014, 2, 30)
    assert (whole.pub_date, whole.flags) == ("2014-10-27", {})
    assert (month.pub_date, month.flags) == ("", {"date_partial": "1997-07"})
    assert (year.pub_date, year.flags) == ("", {"date_partial": "2016"})
    assert (bad.pub_date, bad.flags) == ("", {"date_partial": "2014-02"})
