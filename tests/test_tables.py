"""Publications as table rows and DataFrames."""

from __future__ import annotations

import pytest

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.parts import Author, MeshTerm
from pubfetch.model.publication import Publication
from pubfetch.model.rich import Relation, RichName
from pubfetch.tables import COLUMNS, row, to_dataframe
from support.publications import rich_publication


def sample() -> Publication:
    args = FetcherArgs()
    pub = Publication(clock=lambda: 1_600_000_000_000)
    pub.set_pmid("31114920", PartType.external, "", args)
    pub.set_doi("10.1093/nar/gkz369", PartType.europepmc, "u", args)
    pub.set_title("EDAM: an ontology", PartType.europepmc, "u", args)
    pub.set_keywords(["ontology", "bioinformatics"], PartType.europepmc, "u", args)
    pub.set_mesh([MeshTerm("Software", True, "D012984"), MeshTerm("Humans", False, "D006801")], PartType.pubmed_xml,
                 "u", args)
    pub.set_pub_date("2019-07-02")
    pub.authors = [Author(literal="Jon Ison"), Author(given="Matúš", family="Kalaš")]
    pub.journal_title = "Nucleic Acids Research"
    pub.oa = True
    return pub


def test_row_flattens_parts_and_facts():
    r = row(sample())
    assert list(r) == list(COLUMNS)
    assert r["pmid"] == "31114920" and r["pmcid"] == "" and r["doi"] == "10.1093/NAR/GKZ369"
    assert r["keywords"] == "ontology; bioinformatics"
    assert r["mesh"] == "Software; Humans"
    assert r["authors"] == "Jon Ison; Matúš Kalaš"
    assert r["pub_date"] == "2019-07-02"
    assert r["oa"] is True and r["citations_count"] is None
    assert r["status"] == "non-final"


def test_dataframe_has_one_row_per_publication():
    pandas = pytest.importorskip("pandas", reason="pandas is the optional [tables] extra")
    frame = to_dataframe([sample(), sample()])
    assert isinstance(frame, pandas.DataFrame)
    assert frame.shape == (2, len(COLUMNS))
    assert frame.loc[0, "title"] == "EDAM: an ontology"
    assert frame.loc[0, "keywords"] == ["ontology", "bioinformatics"]
    assert frame.loc[1, "mesh"] == ["Software", "Humans"]
    assert frame.loc[0, "authors"] == ["Jon Ison", "Matúš Kalaš"]
    assert frame.loc[0, "pub_date"] == pandas.Timestamp("2019-07-02", tz="UTC")
    assert frame.loc[0, "fetch_time"] is pandas.NaT  # never fetched
    assert isinstance(frame["pub_date"].dtype, pandas.DatetimeTZDtype) and str(frame["pub_date"].dt.tz) == "UTC"
    assert frame.loc[0, "citations_count"] is pandas.NA


def test_dataframe_columns_of_the_rich_parts():
    pytest.importorskip("pandas", reason="pandas is the optional [tables] extra")
    frame = to_dataframe([rich_publication(), Publication()])
    rich = ["retracted", "license", "funding", "updates", "references", "sections"]
    assert frame.loc[0, rich].tolist() == [
        True, "https://creativecommons.org/licenses/by/4.0/", ["NIGMS NIH HHS R01 GM1"], ["RetractionIn:456"], ["1"],
        ["Introduction"]]  # references by cited PMID; sections: the top-level titles
    assert frame.loc[1, rich].tolist() == [False, "", [], [], [], []]


def test_dataframe_relations_column():
    pytest.importorskip("pandas", reason="pandas is the optional [tables] extra")
    preprint = Publication()
    preprint.set_rich(RichName.relations, [Relation("is-preprint-of", "10.1016/J.XGEN.2025.100814")], PartType.crossref,
                      "https://api.crossref.org/works/10.1101/2024.04.01.587366")
    frame = to_dataframe([preprint, Publication()])
    assert frame["relations"].tolist() == [["is-preprint-of:10.1016/J.XGEN.2025.100814"], []]
