"""Publications built part by part, as the fetcher leaves them, for the tests of what reads them: the store, the
writers and the run report."""

from __future__ import annotations

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.identity import Reason
from pubfetch.model.identity_sites import RejectedSite, UnverifiedSite
from pubfetch.model.links import TextLink
from pubfetch.model.part_type import PartType
from pubfetch.model.parts import MeshTerm, VisitedSite
from pubfetch.model.publication import Publication
from pubfetch.model.retraction import RetractionSource, RetractionVerdict
from pubfetch.model.rich import Grant, Reference, RichName, Section, Update
from pubfetch.model.structure import Figure, Statement, Supplement, Table

ARGS = FetcherArgs()
ABSTRACT = "We describe a method for aligning protein sequences against large databases. " * 4
FULLTEXT = "Introduction. Sequence alignment is the first step of most analyses of new genomes. " * 40
EPMC = "https://www.ebi.ac.uk/europepmc/webservices/rest/"


def fetched_publication(pmid: str, doi: str, title: str, *, abstract: bool = True,
                        fulltext: tuple[PartType, str] | None, visited: tuple[str, ...] = (), mesh: bool = True,
                        fetch_exception: bool = False) -> Publication:
    """A publication as the fetcher leaves it: IDs from Europe PMC, title and abstract from its search, MeSH from
    PubMed, a full text of the given type and URL, the publisher pages read."""
    pub = Publication()
    pub.set_pmid(pmid, PartType.europepmc, f"{EPMC}search?query=EXT_ID:{pmid}", ARGS)
    pub.set_doi(doi, PartType.europepmc, f"{EPMC}search?query=EXT_ID:{pmid}", ARGS)
    pub.set_title(title, PartType.europepmc, f"{EPMC}search?query=EXT_ID:{pmid}", ARGS)
    if abstract:
        pub.set_abstract(ABSTRACT, PartType.europepmc, f"{EPMC}search?query=EXT_ID:{pmid}", ARGS)
    if mesh:
        pub.set_mesh([MeshTerm("Software", True, "D012984"), MeshTerm("Humans", False, "D006801")],
                     PartType.pubmed_xml, f"https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi?id={pmid}",
                     ARGS)
    if fulltext is not None:
        pub.set_fulltext(FULLTEXT, fulltext[0], fulltext[1], ARGS)
    for url in visited:
        pub.add_visited_site(VisitedSite(url, PartType.doi, f"https://doi.org/{doi}", 1_700_000_000_000))
    pub.state.fetch_exception = fetch_exception
    return pub


def rich_publication() -> Publication:
    """A retracted paper with every rich part (funding, updates, references, sections, licence, links), each with
    its provenance."""
    pub = Publication()
    pub.set_pmid("22528466", PartType.pubmed_xml, "https://eutils/x", FetcherArgs())
    pub.set_rich(RichName.funding, [Grant("NIGMS NIH HHS", "R01 GM1", "United States")], PartType.pubmed_xml, "u1")
    pub.set_rich(RichName.updates, [Update("RetractionIn", "456", "10.1/X")], PartType.pubmed_xml, "u1")
    pub.set_rich(RichName.references, [Reference("1", "PMC2", "10.2/Y", "Cited", "Cited. 2000")],
                 PartType.europepmc_xml, "u2")
    pub.set_rich(RichName.sections, [Section("Introduction", 1, "Text."), Section("Aims", 2, "More.")],
                 PartType.europepmc_xml, "u2")
    pub.set_rich(RichName.license, "https://creativecommons.org/licenses/by/4.0/", PartType.europepmc_xml, "u2")
    pub.set_rich(RichName.links, [TextLink("geo", "GSE12345", "geo", ("Methods", "Data"), "Data are at GSE12345.")],
                 PartType.europepmc_xml, "u2")
    pub.set_retraction(RetractionVerdict(RetractionSource.pubmed, True))
    return pub


def structured_publication() -> Publication:
    """A paper with a title, abstract, sections, references and every structure part: a table with two header rows,
    a cell holding a pipe and a line break, and a footnote; a figure, a supplement and two statements."""
    pub = Publication()
    args = FetcherArgs()
    pub.set_pmcid("PMC7", PartType.europepmc_xml, "u", args)
    pub.set_pmid("77", PartType.europepmc_xml, "u", args)
    pub.set_title("Tables as data", PartType.europepmc_xml, "u", args)
    pub.set_abstract("What the paper found.", PartType.europepmc_xml, "u", args)
    pub.set_rich(RichName.sections, [Section("Results", 1, "We measured.\n\nIt worked."), Section("Dose", 2, "More.")],
                 PartType.europepmc_xml, "u")
    pub.set_rich(RichName.references, [Reference("1", "", "10.2/Y", "Cited", "Cited. 2000")], PartType.europepmc_xml,
                 "u")
    table = Table("T1", "Table 1", "Doses given", [["Group", "Dose", "Dose"], ["Group", "mg", "mL"]],
                  [["A | B", "1", "2\n3"], ["C", "", "4"]], ["a Per day."], ["Results", "Dose"])
    pub.set_rich(RichName.tables, [table], PartType.europepmc_xml, "u")
    pub.set_rich(RichName.figures, [Figure("F1", "Figure 1", "A plot.", "https://europepmc.org/articles/PMC7/bin/f1.jpg")],
                 PartType.europepmc_xml, "u")
    pub.set_rich(RichName.supplements, [Supplement("S1", "S1", "Raw data.", "https://europepmc.org/articles/PMC7/bin/s1.csv",
                                                   "text/csv", 12)], PartType.europepmc_xml, "u")
    pub.set_rich(RichName.statements, [Statement("data_availability", "Data availability", "In Zenodo."),
                                       Statement("funding", "", "Funded by X.")], PartType.europepmc_xml, "u")
    return pub


def checked_publication() -> Publication:
    """A DOI-only paper with one page rejected as another paper's (its claimed DOI and title) and one merged
    unverified."""
    pub = Publication(clock=lambda: 1_700_000_000_000)
    pub.set_doi("10.5555/identity.redirect", PartType.external, "", FetcherArgs())
    pub.reject_site(RejectedSite("https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0213978",
                                 PartType.doi, Reason.ID, "https://doi.org/10.5555/identity.redirect",
                                 doi="10.1371/JOURNAL.PONE.0213978",
                                 title="Assessment on <reticuloendotheliosis> virus & co", timestamp=1_700_000_000_000))
    pub.add_unverified_site(UnverifiedSite("https://old.example.org/article/7", PartType.link_oadoi,
                                           ("An old page", "Old"), "https://api.unpaywall.org/",
                                           1_700_000_000_500))
    return pub
