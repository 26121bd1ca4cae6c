"""extract/description.py: a meta description stands as the abstract only when nothing says it is something else."""

from __future__ import annotations

import pytest

from pubfetch.extract.description import why_not_an_abstract

ABSTRACT = ("Cell-free DNA in urine is a promising analyte for noninvasive diagnostics. Here we characterise the "
            "fragment sizes of urine cell-free DNA in twenty donors and find sub-nucleosomal organisation of the "
            "fragments, which bears on the design of assays that target short fragments.")
ARTICLE = (ABSTRACT + " ") * 3 + " ".join(f"Paragraph {i} of the article discusses fragments, donors, assays and "
                                          "nucleosomes in urine samples." for i in range(40))


def test_an_abstract_sized_complete_description_stands() -> None:
    assert why_not_an_abstract(ABSTRACT, title="Sub-nucleosomal organization in urine cell-free DNA",
                               site_names=("bioRxiv",), page_text=ARTICLE) == ""


def test_it_stands_on_a_landing_page_without_article_text() -> None:
    assert why_not_an_abstract(ABSTRACT, page_text="Sign in to read the full text.") == ""


@pytest.mark.parametrize("description", [
    # an impact statement of one sentence
    "The ascidian Ciona integrates visual information from two photoreceptor types through convergent circuits.",
    # a description cut at a character count, with and without an ellipsis
    ABSTRACT[:-1] + " and more besides, as the authors argue at length in the paper that follows here ...",
    ABSTRACT + " By the early 1970s, however, political and cultural pressures for",
])
def test_teasers_and_truncations_are_not_abstracts(description: str) -> None:
    assert why_not_an_abstract(description, page_text=ARTICLE)


def test_a_blurb_opening_with_the_title_is_not_an_abstract() -> None:
    blurb = "Life in a world without microbes " + ABSTRACT
    assert why_not_an_abstract(blurb, title="Life in a World without Microbes") == "a blurb opening with the title"


def test_the_journals_description_of_itself_is_not_an_abstract() -> None:
    site = ("PLOS Biology is an open-access, peer-reviewed journal that features works of exceptional significance "
            "in all areas of biological science, from molecules to ecosystems, including works at the interface.")
    assert "journal" in why_not_an_abstract(site, site_names=("PLOS Biology", "Public Library of Science"))


def test_a_description_of_another_text_is_not_this_articles_abstract() -> None:
    other = ("Analysis of Hitchcock's Rope (1948) as a critique of heteromasculinity that thematizes queer anguish, "
             "orality, and women's relationship to the covert world of homosexual knowledge in postwar cinema.")
    assert "another text" in why_not_an_abstract(other, page_text=ARTICLE)


def test_an_abstract_tag_is_judged_only_by_an_ellipsis() -> None:
    """citation_abstract is written as an abstract: short or naming the journal, it stands; cut with "...", not."""
    short = "We report a short abstract of a letter."
    assert why_not_an_abstract(short, family="citation") == ""
    assert why_not_an_abstract(ABSTRACT + " PLOS Biology", family="citation", site_names=("PLOS Biology",)) == ""
    assert why_not_an_abstract(ABSTRACT[:200] + " ...", family="citation")
    assert why_not_an_abstract(short, family="og")


@pytest.mark.parametrize("ending", [
    " Availability and implementation: https://github.com/example/pubfetch",
    " Trial registration: ClinicalTrials.gov NCT01234567",
    " The effect held in every cohort (Fig. 1)",
    " The code is at doi:10.5281/zenodo.1234567",
])
def test_a_complete_abstract_may_end_without_a_full_stop(ending: str) -> None:
    assert why_not_an_abstract(ABSTRACT + ending, family="og", page_text=ARTICLE + ending) == ""


def test_an_abstract_mentioning_a_word_that_is_also_the_journals_name_stands() -> None:
    """Hypertension, Diabetes, Development, Nutrients ...: the journal's name in the abstract's own sense."""
    text = ("Hypertension is the leading modifiable risk factor for cardiovascular disease worldwide. We followed "
            "a cohort of 12,000 adults for ten years and estimated how treatment changed the incidence of stroke.")
    assert why_not_an_abstract(text, family="dc", site_names=("Hypertension", "American Heart Association")) == ""
