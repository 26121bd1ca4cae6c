"""A page's titles compared: a rule's title completed by a title that goes on with its subtitle, a meta title's
spacing artefacts given up for the visible heading's."""

from __future__ import annotations

import pytest

from pubfetch.extract.title_choice import complete_title, shown_spacing

MAIN = "Tidal sediment supply controls the resilience of salt marshes"


@pytest.mark.parametrize("complete", [f"{MAIN}: evidence from forty sites", f"{MAIN} \u2014 a six-year study",
                                      f"{MAIN}. Part 2, the estuaries"])
def test_a_rules_title_gives_way_to_a_complete_title_with_its_subtitle(complete: str) -> None:
    assert complete_title(MAIN, "", complete) == complete
    assert complete_title(MAIN, complete, "") == complete


@pytest.mark.parametrize("other", [
    f"Research report {MAIN}",  # an article type before the title
    f"{MAIN} Available",  # an access badge after it
    f"{MAIN}: " + "and much more of the page's header " * 10,  # far longer than a title
    "Salt marshes",  # shorter
])  # fmt: skip
def test_a_rules_title_stays_against_what_is_not_its_completion(other: str) -> None:
    assert complete_title(MAIN, other) == MAIN


def test_a_meta_titles_spacing_artefacts_give_way_to_the_visible_heading() -> None:
    assert shown_spacing("Ni 12 P 5 nanocrystals for sodium storage", "Ni12P5 nanocrystals for sodium storage") == (
        "Ni12P5 nanocrystals for sodium storage")
    assert shown_spacing("Nickel phosphide for sodium storage", "Ni12P5 nanocrystals for sodium storage") == (
        "Nickel phosphide for sodium storage")  # another title: the meta tag's stays
    assert shown_spacing("Ni12P5 nanocrystals", "") == "Ni12P5 nanocrystals"


def test_the_journals_name_after_a_title_is_no_subtitle() -> None:
    journal = "Journal of Estuarine Studies"
    assert complete_title(MAIN, f"{MAIN} : {journal}", site_names=(journal, "Tidewater Press")) == MAIN


def test_a_journal_name_the_meta_tags_do_not_give_is_no_subtitle_either() -> None:
    assert complete_title(MAIN, f"{MAIN} : Industrial Psychiatry Journal") == MAIN
