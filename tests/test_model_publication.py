"""A publication: when its parts and the whole are usable and final, the overwrite rules between sources, IDs,
set-once fields and the JSON form. Part types, parts, webpages and the fetch state have files of their own."""

import dataclasses

import pytest

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import (
    CorrespAuthor,
    MeshTerm,
    MinedTerm,
    PartType,
    Publication,
    VisitedSite,
)
from support.clock import FixedClock

ARGS = FetcherArgs()
T = PartType
ABSTRACT = "A" * 250
FULLTEXT = "F" * 2500


def pub() -> Publication:
    return Publication(clock=FixedClock())


# --- usable / final -----------------------------------------------------------------------------------------------------

def test_usable_thresholds():
    p = pub()
    p.set_title("abc", T.europepmc, "u", ARGS)
    assert not p.title.is_usable(ARGS) and not p.title.is_final(ARGS)
    p = pub()
    p.set_title("abcd", T.europepmc, "u", ARGS)
    assert p.title.is_final(ARGS)
    p.set_abstract("x" * 199, T.europepmc, "u", ARGS)
    assert not p.abstract.is_usable(ARGS)
    p.set_abstract("x" * 200, T.europepmc, "u", ARGS)
    assert p.abstract.is_final(ARGS)
    p.set_keywords(["one"], T.europepmc, "u", ARGS)
    assert not p.keywords.is_usable(ARGS)
    p2 = pub()
    p2.set_efo([MinedTerm("cell", 2, "http://efo/1")], T.europepmc, "u", ARGS)
    assert p2.efo.is_final(ARGS)


def test_fulltext_from_webpage_is_never_usable():
    p = pub()
    p.set_fulltext(FULLTEXT, T.webpage, "u", ARGS)
    assert p.fulltext.content == FULLTEXT
    assert not p.fulltext.is_usable(ARGS)
    p2 = pub()
    p2.set_fulltext(FULLTEXT, T.pdf_meta, "u", ARGS)
    assert p2.fulltext.is_usable(ARGS) and not p2.fulltext.is_final(ARGS)


def test_usable_under_other_parameters():
    lenient = dataclasses.replace(ARGS, title_min_length=2) if dataclasses.is_dataclass(ARGS) else None
    if lenient is None:
        pytest.skip("FetcherArgs is not a dataclass")
    p = pub()
    p.set_title("ab", T.doi, "u", ARGS)
    assert p.title.is_final(lenient) and not p.title.is_final(ARGS)


def test_publication_empty_usable_final_totally_final():
    p = pub()
    assert p.is_empty() and not p.is_usable(ARGS) and not p.is_final(ARGS)
    assert p.status(ARGS) == "empty"
    p.set_title("A title", T.europepmc, "u", ARGS)
    assert not p.is_empty() and p.is_usable(ARGS) and not p.is_final(ARGS)
    assert p.status(ARGS) == "non-final"
    p.set_abstract(ABSTRACT, T.europepmc, "u", ARGS)
    p.set_fulltext(FULLTEXT, T.europepmc_xml, "u", ARGS)
    assert p.is_final(ARGS) and not p.is_totally_final(ARGS)
    assert p.status(ARGS) == "final"
    p.set_pmid("1", T.europepmc, "u", ARGS)
    p.set_pmcid("PMC2", T.europepmc, "u", ARGS)
    p.set_doi("10.1/x", T.europepmc, "u", ARGS)
    p.set_keywords(["a", "b"], T.europepmc, "u", ARGS)
    p.set_mesh([MeshTerm("Humans", False, "D006801"), MeshTerm("Software", True, "D012984")], T.pubmed_xml, "u", ARGS)
    p.set_efo([MinedTerm("x", 1, "u")], T.europepmc, "u", ARGS)
    assert not p.is_totally_final(ARGS)
    p.set_go([MinedTerm("y", 1, "u")], T.europepmc, "u", ARGS)
    assert p.is_totally_final(ARGS)
    assert p.status(ARGS) == "totally final"


def test_non_usable_status():
    p = pub()
    p.set_title("ab", T.europepmc, "u", ARGS)
    assert p.status(ARGS) == "non-usable"


# --- overwrite rules ------------------------------------------------------------------------------------------------

def test_final_part_is_never_overwritten():
    p = pub()
    assert p.set_title("First final title", T.doi, "u1", ARGS)
    assert not p.set_title("A much longer title from Europe PMC", T.europepmc, "u2", ARGS)
    assert p.title.content == "First final title" and p.title.type is T.doi and p.title.url == "u1"


def test_worse_type_does_not_replace_better():
    p = pub()
    p.set_title("ab", T.citation, "u1", ARGS)  # non-usable, non-final
    assert not p.set_title("a longer title", T.og, "u2", ARGS)
    assert p.title.content == "ab"
    assert not p.set_title("another title", T.citation, "u3", ARGS)  # equal non-final type: not better
    assert p.title.content == "ab"
    assert p.set_title("xyz", T.doi, "u4", ARGS)
    assert p.title.content == "xyz" and p.title.type is T.doi


def test_final_type_tie_goes_to_longer_content():
    p = pub()
    p.set_title("ab", T.pubmed_xml, "u1", ARGS)  # final type but not usable, so not final
    assert not p.set_title("a", T.europepmc, "u2", ARGS)  # shorter final-type content loses
    assert p.title.content == "ab"
    assert not p.set_title("cd", T.europepmc, "u2", ARGS)  # equal length loses too
    assert p.set_title("abc", T.doi, "u3", ARGS)
    assert p.title.content == "abc" and p.title.type is T.doi


def test_better_non_final_type_replaces_even_if_shorter():
    p = pub()
    p.set_abstract("x" * 150, T.og, "u1", ARGS)
    assert p.set_abstract("y" * 20, T.citation, "u2", ARGS)
    assert p.abstract.content == "y" * 20


def test_list_tie_goes_to_more_elements():
    p = pub()
    p.set_keywords(["a"], T.europepmc, "u", ARGS)
    assert not p.set_keywords(["b"], T.pubmed_xml, "u", ARGS)
    assert p.set_keywords(["b", "c"], T.pubmed_xml, "u", ARGS)
    assert p.keywords.items == ["b", "c"]
    assert not p.set_keywords(["d", "e", "f"], T.europepmc, "u", ARGS)  # now final


def test_empty_content_is_never_set():
    p = pub()
    assert not p.set_title("   ", T.europepmc, "u", ARGS)
    assert not p.set_keywords([" ", None, ""], T.europepmc, "u", ARGS)
    assert p.title.type is T.na and p.keywords.type is T.na


def test_keywords_trimmed_deduplicated_and_html_stripped():
    p = pub()
    p.set_keywords([" a ", "b", "a", "", "<i>c</i> &amp; d"], T.citation, "u", ARGS, clean=True)
    assert p.keywords.items == ["a", "b", "c & d"]


def test_meta_values_strip_html():
    p = pub()
    p.set_title("<b>Bold</b> title", T.citation, "u", ARGS, clean=True)
    assert p.title.content == "Bold title"
    p2 = pub()
    p2.set_title("<b>Bold</b> title", T.europepmc, "u", ARGS)
    assert p2.title.content == "<b>Bold</b> title"


def test_part_records_type_url_and_time():
    clock = FixedClock(1_600_000_000_123)
    p = Publication(clock=clock)
    p.set_title("Title here", T.pubmed_xml, " https://x/ ", ARGS)
    assert (p.title.type, p.title.url, p.title.timestamp) == (T.pubmed_xml, "https://x/", 1_600_000_000_123)
    assert p.title.timestamp_human == "2020-09-13T12:26:40.123Z"


def test_lowest_type():
    p = pub()
    p.set_title("Title", T.europepmc, "u", ARGS)
    p.set_abstract(ABSTRACT, T.citation, "u", ARGS)
    p.set_fulltext(FULLTEXT, T.pdf_doi, "u", ARGS)
    assert p.lowest_type() is T.na  # keywords never set
    p.set_keywords(["a", "b"], T.og, "u", ARGS)
    assert p.lowest_type() is T.pdf_doi


# --- IDs --------------------------------------------------------------------------------------------------------------

def test_set_id_requires_valid_id_and_better_type():
    p = pub()
    assert not p.set_pmid("PMC1", T.europepmc, "u", ARGS)
    assert not p.set_pmcid("123", T.europepmc, "u", ARGS)
    assert not p.set_doi("10.1/a b", T.europepmc, "u", ARGS)
    assert p.set_doi("https://doi.org/10.1/ab", T.citation, "u", ARGS)
    assert p.doi.content == "10.1/AB"
    assert p.set_doi("10.1/CD", T.europepmc, "u", ARGS)
    assert p.doi.content == "10.1/CD"
    assert not p.set_doi("10.1/EF", T.pubmed_xml, "u", ARGS)  # final now
    assert p.ids.ids == ("", "", "10.1/CD")


def test_set_id_keeps_old_on_version_suffix_f1000_and_zenodo():
    p = pub()
    p.set_doi("10.1101/2020.01.01.123456v2", T.citation, "u", ARGS)
    p.set_doi("10.1101/2020.01.01.123456", T.doi, "u", ARGS)
    assert p.doi.content == "10.1101/2020.01.01.123456"  # "V2" is not a [._-][0-9]+ suffix: the better type wins
    q = pub()
    q.set_doi("10.7554/eLife.12345", T.citation, "u", ARGS)
    q.set_doi("10.7554/eLife.12345.001", T.doi, "u", ARGS)
    assert q.doi.content == "10.7554/ELIFE.12345" and q.doi.type is T.doi
    r = pub()
    r.set_doi("10.12688/f1000research.1.1", T.citation, "u", ARGS)
    r.set_doi("10.12688/f1000research.1.2", T.doi, "u", ARGS)
    assert r.doi.content == "10.12688/F1000RESEARCH.1.1"
    s = pub()
    s.set_doi("10.5281/zenodo.1", T.citation, "u", ARGS)
    s.set_doi("10.5281/zenodo.2", T.doi, "https://zenodo.org/record/2", ARGS)
    assert s.doi.content == "10.5281/ZENODO.1"
    t = pub()
    t.set_doi("10.1/A", T.citation, "u", ARGS)
    t.set_doi("10.1/B", T.doi, "https://example.org/", ARGS)
    assert t.doi.content == "10.1/B"


def test_reset_keeps_ids():
    p = pub()
    p.set_pmid("1", T.europepmc, "u", ARGS)
    p.set_title("Title", T.europepmc, "u", ARGS)
    p.reset()
    assert p.pmid.content == "1" and p.title.is_empty() and p.is_empty()


# --- set-once fields ----------------------------------------------------------------------------------------------------

def test_set_once_fields():
    p = pub()
    p.set_journal_title(" Nucleic Acids Research ")
    p.set_journal_title("Other")
    assert p.journal_title == "Nucleic Acids Research"
    assert not p.set_pub_date("2019/07/02")
    assert p.set_pub_date("2019-07-02")
    assert not p.set_pub_date("2020-01-01")
    assert p.pub_date == 1562025600000
    a, b = CorrespAuthor(name="A", email="a@x"), CorrespAuthor(name="B")
    p.set_corresp_author([a])
    p.set_corresp_author([b])
    assert p.corresp_author == [a]
    p.set_corresp_author([b], force=True)
    assert p.corresp_author == [b]
    p.set_biblio(volume="47", issue="W1")
    p.set_biblio(volume="48")
    assert (p.volume, p.issue) == ("47", "W1")


def test_citations_count():
    p = Publication(clock=FixedClock(5))
    assert not p.set_citations_count("-1")
    assert not p.set_citations_count("many")
    assert p.set_citations_count("12")
    assert (p.citations_count, p.citations_timestamp) == (12, 5)


def test_visited_sites_unique_by_url():
    p = pub()
    p.add_visited_site(VisitedSite("https://a/", T.doi, "https://doi.org/x", 1))
    p.add_visited_site(VisitedSite("https://a/", T.link, "", 2))
    assert len(p.visited_sites) == 1


def test_json_round_trip():
    p = pub()
    p.set_pmid("31114920", T.europepmc, "https://www.ncbi.nlm.nih.gov/pubmed/?term=31114920", ARGS)
    p.set_title("Title", T.europepmc, "u", ARGS)
    p.set_mesh([MeshTerm("Humans", False, "D006801")], T.pubmed_xml, "u", ARGS)
    p.set_go([MinedTerm("protein binding", 3, "http://purl.obolibrary.org/obo/GO_0005515")], T.europepmc, "u", ARGS)
    p.set_corresp_author([CorrespAuthor(name="A", email="a@x")])
    p.add_visited_site(VisitedSite("https://a/", T.doi, "https://doi.org/x", 1))
    p.state.fetch_time = 7
    d = p.to_json(ARGS)
    assert list(d)[:4] == ["fetchTime", "fetchTimeHuman", "retryCounter", "fetchException"]
    assert list(d)[-10:] == ["pmid", "pmcid", "doi", "title", "keywords", "mesh", "efo", "go", "abstract", "fulltext"]
    q = Publication.from_json(d)
    assert q.to_json(ARGS) == d
    stored = p.to_json(computed=False)
    assert "empty" not in stored and "usable" not in stored["title"]
    assert Publication.from_json(stored).to_json(ARGS) == d
