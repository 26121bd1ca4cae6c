"""A run that asks for some parts judges a publication by those (``--fetch-part``); the run's outcome under that
rule is tested through the command line in test_run_outcome.py."""

from __future__ import annotations

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.asked_parts import asked_parts
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication

ARGS = FetcherArgs()
SOURCE = "https://www.ebi.ac.uk/europepmc/"


def final_without_fulltext() -> Publication:
    pub = Publication()
    pub.set_pmid("1", PartType.europepmc, SOURCE, ARGS)
    pub.set_title("A final title", PartType.europepmc, SOURCE, ARGS)
    pub.set_abstract("An abstract. " * 40, PartType.europepmc, SOURCE, ARGS)
    return pub


def test_finality_judged_by_asked_parts() -> None:
    pub = final_without_fulltext()
    assert not pub.is_final(ARGS)
    assert asked_parts(pub, None) is pub and asked_parts(pub, frozenset(PartName)) is pub
    assert asked_parts(pub, {PartName.title, PartName.theAbstract, PartName.keywords}).is_final(ARGS)
    assert not asked_parts(pub, {PartName.fulltext}).is_final(ARGS)
    # asking for none of the deciding parts: judged by what is asked for
    assert asked_parts(pub, {PartName.pmid}).is_final(ARGS)
    assert not asked_parts(pub, {PartName.pmid, PartName.doi}).is_final(ARGS)  # it has no DOI
    assert not asked_parts(Publication(), {PartName.title}).is_final(ARGS)

