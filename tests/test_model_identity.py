"""Whose page is it: the decision from what a page claims against the publication's known IDs and title, DOI
normalisation and version schemes, preprint pages, title similarity and its threshold."""

import pytest

from pubfetch.model.identity import (
    DEFAULT_TITLE_SIMILARITY,
    Claims,
    Reason,
    Verdict,
    decide,
    doi_base,
    is_preprint_doi,
    same_doi,
    title_similarity,
)

PAGE = "https://journals.example.org/article/1"
TITLE = "Parallel visual circuitry in a basal chordate"


@pytest.mark.parametrize(("a", "b"), [
    ("10.1371/journal.pone.0213978", "10.1371/JOURNAL.PONE.0213978"),
    ("doi:10.1371/journal.pone.0213978", "https://doi.org/10.1371/journal.pone.0213978"),
    ("http://dx.doi.org/10.7717/peerj.4375", "10.7717/PEERJ.4375"),
    ("10.12688/f1000research.12345.1", "10.12688/f1000research.12345.2"),
    ("10.12688/wellcomeopenres.15191.1", "10.12688/WELLCOMEOPENRES.15191.3"),
    ("10.7554/eLife.44753", "10.7554/eLife.44753.3"),
    ("10.1101/696633", "10.1101/696633v1"),
    ("10.1101/2020.03.01.971234v2", "10.1101/2020.03.01.971234"),
    ("10.48550/arXiv.2010.09039", "10.48550/arXiv.2010.09039v1"),
    ("10.21203/rs.3.rs-123456/v1", "10.21203/rs.3.rs-123456/v2"),
    ("10.20944/preprints202001.0001.v1", "10.20944/preprints202001.0001.v2"),
    ("10.6084/m9.figshare.5616715.v1", "10.6084/m9.figshare.5616715"),
])
def test_dois_of_one_paper(a: str, b: str) -> None:
    assert same_doi(a, b) and same_doi(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("10.1038/s41586-020-2012-7", "10.1038/s41586-020-2951-z"),  # an article and its erratum
    ("10.1007/978-3-030-12345-6", "10.1007/978-3-030-12345-6_5"),  # a book and one of its chapters
    ("10.1007/978-3-030-12345-6_5", "10.1007/978-3-030-12345-6_6"),  # two chapters
    ("10.1371/journal.pone.0213978", "10.1371/journal.pone.0213979"),
    ("10.1101/gad.1234", "10.1101/gad.1234v1"),  # a Cold Spring Harbor journal has no bioRxiv versions
    ("10.1038/nature01353", "10.1038/nature01353.2"),  # a suffix is a version only where the registrant says so
    ("10.5281/zenodo.1196821", "10.5281/zenodo.1196820"),  # Zenodo DOIs away from zenodo.org
])
def test_dois_of_other_papers(a: str, b: str) -> None:
    assert not same_doi(a, b)


def test_zenodo_concept_and_version_dois_on_zenodo() -> None:
    assert same_doi("10.5281/zenodo.1196820", "10.5281/zenodo.1196821", "https://zenodo.org/records/1196821")
    assert doi_base("10.7554/eLife.44753.3") == "10.7554/ELIFE.44753"


def test_the_same_doi_in_any_case_and_form_is_the_same_paper() -> None:
    claims = Claims(PAGE, dois=("10.7554/ELIFE.44753",))
    assert decide(claims, doi="doi:10.7554/elife.44753").verdict is Verdict.SAME


def test_another_doi_is_another_paper_whatever_the_title() -> None:
    claims = Claims(PAGE, dois=("10.1038/S41586-020-2951-Z",), titles=(TITLE,))
    decision = decide(claims, doi="10.1038/s41586-020-2012-7", known_title=TITLE)
    assert (decision.verdict, decision.reason) == (Verdict.OTHER, Reason.ID)


def test_one_matching_id_is_enough_and_a_pmid_decides_without_a_doi() -> None:
    claims = Claims(PAGE, dois=("10.1162/NECO.1997.9.8.1735",), pmids=("9377276",))
    assert decide(claims, pmid="1", doi="10.1162/neco.1997.9.8.1735").verdict is Verdict.SAME
    assert decide(Claims(PAGE, pmids=("9377276",)), pmid="9377276").verdict is Verdict.SAME
    assert decide(Claims(PAGE, pmids=("9377276",)), pmid="9377277").verdict is Verdict.OTHER
    assert decide(Claims(PAGE, pmcids=("PMC1280342",)), pmcid="pmc1280342").verdict is Verdict.SAME


def test_ids_of_kinds_the_publication_lacks_fall_back_to_the_title() -> None:
    claims = Claims(PAGE, pmids=("9377276",), titles=("Long Short-Term Memory",))
    assert decide(claims, doi="10.1162/neco.1997.9.8.1735", known_title="Long short-term memory").verdict \
        is Verdict.SAME
    decision = decide(claims, doi="10.1162/neco.1997.9.8.1735", known_title="Deep learning")
    assert (decision.verdict, decision.reason) == (Verdict.OTHER, Reason.TITLE)


def test_no_id_and_no_known_title_is_unverified() -> None:
    assert decide(Claims(PAGE, titles=(TITLE,)), doi="10.7554/eLife.44753").verdict is Verdict.UNVERIFIED
    assert decide(Claims(PAGE), doi="10.7554/eLife.44753", known_title=TITLE).verdict is Verdict.UNVERIFIED


def test_a_preprint_page_for_a_published_doi_is_a_relation_candidate() -> None:
    page = "https://www.biorxiv.org/content/10.1101/696633v1"
    for claims in (Claims(page), Claims(page, dois=("10.1101/696633",), titles=(TITLE,)),
                   Claims(PAGE, dois=("10.48550/ARXIV.2010.09039",))):
        decision = decide(claims, doi="10.7554/eLife.44753", known_title=TITLE)
        assert (decision.verdict, decision.reason) == (Verdict.OTHER, Reason.PREPRINT)
    # the preprint itself asked for: its own server's page is the paper
    assert decide(Claims(page, dois=("10.1101/696633",)), doi="10.1101/696633").verdict is Verdict.SAME
    assert is_preprint_doi("10.1101/2020.03.01.971234") and not is_preprint_doi("10.1101/gad.1234")


def test_a_title_with_the_journal_after_it_or_without_its_subtitle_is_the_same() -> None:
    assert title_similarity(TITLE, TITLE + " | eLife") >= DEFAULT_TITLE_SIMILARITY
    assert title_similarity("Trust in Automation: Integrating Empirical Evidence on Factors That Influence Trust",
                            "Trust in Automation") < DEFAULT_TITLE_SIMILARITY  # too short a part to count
    assert title_similarity("Sub-nucleosomal organization in urine cell-free DNA: a pilot study",
                            "Sub-nucleosomal organization in urine cell-free DNA") >= DEFAULT_TITLE_SIMILARITY
    assert title_similarity("Low‐Dimensional Perovskites", "low-dimensional  perovskites.") == 100


def test_a_notice_about_a_paper_is_not_the_paper() -> None:
    assert title_similarity("Correction: " + TITLE, TITLE) == 0
    assert title_similarity("Reply to: " + TITLE, TITLE) == 0
    assert title_similarity("Correction: " + TITLE, "Correction to: " + TITLE) >= DEFAULT_TITLE_SIMILARITY


def test_the_threshold_decides_a_near_title() -> None:
    near = "Parallel visual circuits in a basal chordate"
    score = title_similarity(TITLE, near)
    assert 80 < score < 100
    claims = Claims(PAGE, titles=(near,))
    assert decide(claims, doi="10.1/x", known_title=TITLE, threshold=score).verdict is Verdict.SAME
    assert decide(claims, doi="10.1/x", known_title=TITLE, threshold=score + 1).verdict is Verdict.OTHER


def test_a_pdf_without_metadata_shows_its_title_on_its_first_page() -> None:
    first_page = "Journal of Things 12 (2020) 1-9\n\n" + TITLE.replace("basal ", "basal\n") + "\n\nA. Author, B. Author"
    claims = Claims("https://x.org/a.pdf", first_page=first_page)
    assert decide(claims, doi="10.1/x", known_title=TITLE).verdict is Verdict.SAME
    assert decide(claims, doi="10.1/x", known_title="Deep learning for protein structure prediction").verdict \
        is Verdict.OTHER
