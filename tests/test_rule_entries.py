"""The test entries of the built-in scraping rules: each is checked on its recorded page in ../shared/corpus, is marked
``untested`` exactly when no page is recorded, and its URL leads to its rule (what ``-scrape-site`` prints).

Also the platform fingerprints (``recognise``): a recorded page moved to a host no URL regex knows still gets its
platform's rule.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.cli.main import main
from pubfetch.engine.assembly import builtin_rules
from pubfetch.extract.clean import parse_html
from pubfetch.rules import ScrapingRules
from pubfetch.ruletest import MANIFESTS, corpus_pages, journal_outcomes, outcome_table, webpage_outcomes

RULES = builtin_rules()
SITE_ENTRIES = [(name, test) for name, site in RULES.sites.items() for test in site.tests]
WEBPAGE_ENTRIES = [(rule.regex, test) for rule in RULES.webpage_rules for test in rule.tests]


def recorded_urls(corpus_dir: Path) -> set[str]:
    urls = set()
    for name in MANIFESTS:
        for line in (corpus_dir / name).read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry["resource"] in ("publisher_page", "pubmed_page") and entry.get("body"):
                urls.add(entry["url"])
    return urls


def test_every_rule_has_test_entries() -> None:
    assert [name for name, site in RULES.sites.items() if not site.tests] == []
    assert [rule.regex for rule in RULES.webpage_rules if not rule.tests] == []


def test_coverage_goal_sites_and_webpage_rules() -> None:
    assert len(RULES.sites) >= 50
    assert len({test.url.split("/")[2] for _, test in SITE_ENTRIES}) >= 62  # hosts with a rule and a sample URL
    assert len(RULES.webpage_rules) >= 50


@pytest.mark.parametrize(("regex", "test"), WEBPAGE_ENTRIES, ids=[t.url for _, t in WEBPAGE_ENTRIES])
def test_webpage_entry_url_gets_its_rule(regex, test) -> None:
    assert RULES.webpage_rule(test.url).regex == regex


@pytest.mark.parametrize(("site", "test"), SITE_ENTRIES, ids=[f"{s}:{t.url}" for s, t in SITE_ENTRIES])
def test_entry_url_names_its_rule(site, test) -> None:
    assert RULES.site(test.url) == site


def test_untested_exactly_when_no_page_is_recorded(corpus_dir: Path) -> None:
    recorded = recorded_urls(corpus_dir)
    wrong = [(name, t.url) for name, t in SITE_ENTRIES + WEBPAGE_ENTRIES if t.untested == (t.url in recorded)]
    assert wrong == []


@pytest.mark.slow
def test_site_entries_pass_on_recorded_pages(corpus_dir: Path) -> None:
    outcomes = [o for o in journal_outcomes(RULES, corpus_pages(corpus_dir)) if o.status != "untested"]
    assert len(outcomes) >= 40
    table, counts = outcome_table(outcomes)
    assert counts == {"pass": len(outcomes)}, table


def test_webpage_entries_pass_on_recorded_pages(corpus_dir: Path) -> None:
    outcomes = [o for o in webpage_outcomes(RULES, corpus_pages(corpus_dir)) if o.status != "untested"]
    table, counts = outcome_table(outcomes)
    assert counts.get("fail", 0) == 0, table


def test_a_changed_selector_fails_its_entry(corpus_dir: Path) -> None:
    text = (Path(__file__).parent.parent / "scraping_rules" / "journals.yaml").read_text(encoding="utf-8")
    broken = text.replace("  fulltext: 'div.body > .sec'", "  fulltext: 'div.body > .no-such-class'")
    assert broken != text
    rules = ScrapingRules()
    rules.add_journals(broken, "journals.yaml")
    [outcome] = journal_outcomes(rules, corpus_pages(corpus_dir), regex="^cambridge$")
    assert outcome.status == "fail"
    assert outcome.differences[0].startswith("fulltext: expected ")
    assert outcome.got["fulltext"] == 0


# -------------------------------------------------------------------------------------------- platform recognition

#: Recorded pages of platforms, as if they were served from a host no URL regex knows.
RECOGNISED = {
    "atypon": ["page-acm-2043155.2043156-abs", "page-inderscience-EG.2020.108455-abs", "page-sage-0018720814547570",
               "page-tandf-0144929X.2019.1578828-paywall", "page-psychiatryonline-ajp.2006.163.11.1905",
               "page-acm-3544548.3581058-2026"],
    "silverchair": ["page-jama-archgenpsychiatry.2010.116", "page-mitpress-neco.1997.9.8.1735-paywall"],
    "ojs": ["page-first-monday-ojs3-landingpage"],
    "invenio": ["page-zenodo-1196821"],
    "arxiv": ["page-arxiv-2010.09039v1-abs", "page-arxiv-1103.1901-abs-2011-zotero-snapshot"],
    "springer_nature": ["page-springerlink-s12525-016-0233-2-paywall-2026"],
    "wiley": ["page-wiley-mar.21498-2026"],
    "highwire": ["page-biorxiv-696633v1"],
}


@pytest.mark.parametrize("platform", sorted(RECOGNISED))
def test_platform_recognised_from_the_page_on_an_unknown_host(platform: str, corpus_dir: Path,
                                                              corpus_pages_by_name) -> None:
    for name in RECOGNISED[platform]:
        entry = corpus_pages_by_name[name]
        soup = parse_html((corpus_dir / entry["body"]).read_bytes())
        url = "https://journals.example.org/article/" + name
        assert RULES.journal_rule(url) is None
        assert RULES.page_rule(url, soup).site == platform, name


def test_pages_of_sites_without_a_platform_are_not_taken_for_one(corpus_dir: Path, corpus_pages_by_name) -> None:
    for name in ("page-plos-one-article", "page-peerj-oa-article", "page-elife-article", "page-dlib-05vanhyning",
                 "page-genders-g58-fairlie", "page-hal-04206682", "page-jstor-20183234", "page-pubmed-28003037"):
        soup = parse_html((corpus_dir / corpus_pages_by_name[name]["body"]).read_bytes())
        assert RULES.recognise(soup) is None, name


def test_generator_meta_tag_recognises_pkp_and_dspace() -> None:
    ops = parse_html('<html><head><meta name="generator" content="Open Preprint Systems 3.3.0.8"></head></html>')
    dspace = parse_html('<html><head><meta name="Generator" content="DSpace 7.6"></head></html>')
    plain = parse_html('<html><head><meta name="generator" content="WordPress 6.4"></head></html>')
    assert RULES.recognise(ops).site == "pkp_preprint"
    assert RULES.recognise(dspace).site == "dspace"
    assert RULES.recognise(plain) is None


@pytest.fixture(scope="module")
def corpus_pages_by_name(corpus_dir: Path) -> dict[str, dict]:
    out = {}
    for name in MANIFESTS:
        for line in (corpus_dir / name).read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            out[entry["name"]] = entry
    return out


# ------------------------------------------------------------------------------------------------ -scrape-site


def test_scrape_site_names_the_rule_of_sample_urls(capsys) -> None:
    """-scrape-site prints ``rules.site(url)``, checked for every sample URL above; here through the command."""
    for site, test in SITE_ENTRIES[::12]:
        assert main(["-scrape-site", test.url]) == 0
        assert capsys.readouterr().out == site + "\n", test.url


def test_scrape_site_as_a_command() -> None:
    url = "https://www.tandfonline.com/doi/full/10.1080/0144929X.2019.1578828"
    done = subprocess.run([sys.executable, "-m", "pubfetch", "-scrape-site", url], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout) == (0, "tandf\n")


def test_docs_rules_md_counts_are_true() -> None:
    """docs/rules.md states how many rules, hosts and entries there are and how many are untested."""
    text = (Path(__file__).parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")
    counts = [int(n) for n in re.findall(r"\*\*([0-9]+)\*\*", text.split("## Coverage", 1)[1])[:9]]
    web_entries = [t for _, t in WEBPAGE_ENTRIES]
    assert counts == [
        len(RULES.sites), len({t.url.split("/")[2].removeprefix("www.") for _, t in SITE_ENTRIES}), len(SITE_ENTRIES),
        sum(not t.untested for _, t in SITE_ENTRIES), sum(t.untested for _, t in SITE_ENTRIES),
        len(RULES.webpage_rules), len(web_entries), sum(not t.untested for t in web_entries),
        sum(t.untested for t in web_entries),
    ]
    for name in RULES.sites:
        assert f"| `{name}` |" in text, name


#: PubFetcher's sites (by family), each with a sample article URL of today's site, and the rule
#: pubfetch applies to it (the platform that hosts the journal now).
PUBFETCHER_SITES = {
    "PNAS": ("https://www.pnas.org/doi/10.1073/pnas.1816400116", "atypon"),
    "ASM journals": ("https://journals.asm.org/doi/10.1128/mSystems.00118-18", "atypon"),
    "Genetics": ("https://www.genetics.org/content/211/1/1", "highwire"),
    "G3": ("https://www.g3journal.org/content/9/1/1", "highwire"),
    "Plant Physiology": ("https://www.plantphysiol.org/content/179/1/1", "highwire"),
    "Plant Cell": ("https://www.plantcell.org/content/31/1/1", "highwire"),
    "Blood": ("https://ashpublications.org/blood/article/133/1/1/260693", "silverchair"),
    "Blood Advances": ("https://ashpublications.org/bloodadvances/article/3/1/1/16232", "silverchair"),
    "Biochem J": ("http://www.biochemj.org/content/476/1/1", "highwire"),
    "Biochem Soc Trans": ("http://www.biochemsoctrans.org/content/47/1/1", "highwire"),
    "MCP": ("https://www.mcponline.org/content/18/1/1", "highwire"),
    "Genome Research": ("https://genome.cshlp.org/content/29/1/1.full", "highwire"),
    "Genes Dev": ("http://genesdev.cshlp.org/content/33/1-2/1", "highwire"),
    "JBC": ("https://www.jbc.org/content/294/3/1003", "highwire"),
    "BMJ": ("https://www.bmj.com/content/364/bmj.l689", "highwire"),
    "Karger": ("https://www.karger.com/Article/FullText/496543", "silverchair"),
    "AACR": ("https://aacrjournals.org/cancerres/article/79/1/1/638283", "silverchair"),
    "Portland Press": ("https://portlandpress.com/biochemj/article/476/1/1/49726", "silverchair"),
    "AIP": ("https://pubs.aip.org/aip/jcp/article/150/1/014101/198399", "silverchair"),
    "JAMA": ("https://jamanetwork.com/journals/jamapsychiatry/fullarticle/210962", "silverchair"),
    "MIT Press": ("https://direct.mit.edu/neco/article/9/8/1735/6109/Long-Short-Term-Memory", "silverchair"),
    "ACS": ("https://pubs.acs.org/doi/10.1021/acs.jproteome.8b00717", "atypon"),
    "Science": ("https://www.science.org/doi/10.1126/science.aaw1219", "atypon"),
    "Taylor & Francis": ("https://www.tandfonline.com/doi/full/10.1080/0144929X.2019.1578828", "tandf"),
    "Mary Ann Liebert": ("https://www.liebertpub.com/doi/10.1089/cmb.2018.0238", "atypon"),
    "World Scientific": ("https://www.worldscientific.com/doi/abs/10.1142/S0219720018400012", "atypon"),
    "Future Science": ("https://www.future-science.com/doi/10.4155/fmc-2018-0345", "atypon"),
    "SAGE": ("https://journals.sagepub.com/doi/full/10.1177/0018720814547570", "atypon"),
    "ACM": ("https://dl.acm.org/doi/10.1145/3544548.3581058", "atypon"),
    "CABI": ("https://www.cabidigitallibrary.org/doi/10.1079/PAVSNNR201914003", "atypon"),
    "Inderscience": ("https://www.inderscienceonline.com/doi/abs/10.1504/EG.2020.108455", "atypon"),
    "PsychiatryOnline": ("https://psychiatryonline.org/doi/10.1176/ajp.2006.163.11.1905", "atypon"),
    "Annual Reviews": ("https://www.annualreviews.org/doi/10.1146/annurev-biodatasci-080917-013343", "atypon"),
    "IEEE": ("https://ieeexplore.ieee.org/document/8443389", "ieee"),
    "Research Square": ("https://www.researchsquare.com/article/rs-123456/v1", "researchsquare"),
    "Zenodo": ("https://zenodo.org/records/1196821", "invenio"),
    "F1000Research": ("https://f1000research.com/articles/7-1234/v1", "f1000"),
    "Gates Open Research": ("https://gatesopenresearch.org/articles/3-12/v1", "f1000"),
    "Wellcome Open Research": ("https://wellcomeopenresearch.org/articles/4-12/v1", "f1000"),
    "Hindawi": ("https://www.hindawi.com/journals/bmri/2019/1234567/", "hindawi"),
    "De Gruyter": ("https://www.degruyter.com/document/doi/10.1515/jib-2018-0001/html", "degruyter"),
    "IOP": ("https://iopscience.iop.org/article/10.1088/1478-3975/ab1234", "iop"),
    "RSC": ("https://pubs.rsc.org/en/content/articlelanding/2019/sc/c8sc04123a", "rsc"),
    "Cambridge": ("https://www.cambridge.org/core/journals/global-sustainability/article/wellbeing-cost-of-carbon/"
                  "TOKEN", "cambridge"),
    "arXiv": ("https://arxiv.org/abs/2010.09039v1", "arxiv"),
    "Preprints.org": ("https://www.preprints.org/manuscript/201901.0001/v1", "preprints_org"),
    "ChemRxiv": ("https://chemrxiv.org/engage/chemrxiv/article-details/60c740a6469df44b1bf4367f", "chemrxiv"),
    "OSF": ("https://osf.io/preprints/psyarxiv/abcde", "osf"),
    "Authorea": ("https://www.authorea.com/users/123/articles/456-example", "authorea"),
    "IUCr": ("https://journals.iucr.org/d/issues/2019/01/00/ab1234/index.html", "iucr"),
    "APS": ("https://journals.aps.org/pre/abstract/10.1103/PhysRevE.99.012345", "aps"),
    "Emerald": ("https://www.emerald.com/insight/content/doi/10.1108/02640470410570802/full/html", "emerald"),
    "Thieme": ("https://www.thieme-connect.com/products/ejournals/abstract/10.1055/s-0039-1677812", "thieme"),
    "Wolters Kluwer (LWW)": ("https://journals.lww.com/inpj/fulltext/2009/18010/event_related_potential__an_overview."
                             "15.aspx", "lww"),
    "JSTOR": ("https://www.jstor.org/stable/20183234", "jstor"),
    "HAL": ("https://hal.science/hal-04206682", "hal"),
    "eLife": ("https://elifesciences.org/articles/44753", "elife"),
    "Cell Press": ("https://www.cell.com/cell/fulltext/S0092-8674(19)30339-9", "cell"),
    "PLOS": ("https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0213978", "plos"),
    "PeerJ": ("https://peerj.com/articles/4375", "peerj"),
    "Nature": ("https://www.nature.com/articles/s41467-025-67227-0", "nature"),
    "BioMed Central": ("https://bmcbioinformatics.biomedcentral.com/articles/10.1186/s12859-019-2619-1",
                       "springer_nature"),
    "SpringerLink": ("https://link.springer.com/article/10.1007/s12525-016-0233-2", "springer_nature"),
    "Oxford Academic": ("https://academic.oup.com/pnasnexus/article/1/1/pgac024/6546203", "oup"),
    "Wiley": ("https://onlinelibrary.wiley.com/doi/10.1002/mar.21498", "wiley"),
    "ScienceDirect": ("https://www.sciencedirect.com/science/article/pii/S2666557326000194", "sciencedirect"),
    "Frontiers": ("https://www.frontiersin.org/articles/10.3389/fgene.2019.00001/full", "frontiers"),
    "MDPI": ("https://www.mdpi.com/1422-0067/20/1/1", "mdpi"),
    "bioRxiv": ("https://www.biorxiv.org/content/10.1101/696633v1", "biorxiv"),
    "OJS journals": ("https://firstmonday.org/ojs/index.php/fm/article/view/10274", "ojs"),
}


def test_pubfetchers_sites_each_have_a_rule() -> None:
    assert len(PUBFETCHER_SITES) == 70  # docs/rules.md says so
    wrong = {name: (url, RULES.site(url)) for name, (url, rule) in PUBFETCHER_SITES.items() if RULES.site(url) != rule}
    assert wrong == {}
