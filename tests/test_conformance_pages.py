"""Conformance over the recorded publisher pages of ../shared/corpus's first two batches (manifest.jsonl, pages.jsonl;
the third has its own test, test_conformance_pages3.py), each reached as a publication by
its DOI through the recorded doi.org redirect, over HTTP and HTTPS (CONNECT) from the replay proxy.

Every page gives its title and DOI; its abstract where the page shows one (checked by the abstract's opening words,
copied from the page); its full text where the page holds it (at least 2,000 characters, from the page's rule). Block
pages (PubMed's bot gate, Cloudflare's challenge, both recorded) give nothing and leave a fetchException and a warning
naming the block.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

import pytest

from pubfetch.model.part_type import PartType
from support.loopback import LoopbackServer, Reply
from support.replayrun import fetch_all
from support.tlsintercept import TlsInterceptor

#: page name -> (kind, title, opening of the abstract as the page shows it, or None when it shows none).
#: Kinds: F full text in the page, A abstract/landing page, O a data set's page (title and description).
PAGES = {
    "page-plos-one-article": ("F", "Assessment on reticuloendotheliosis virus infection in specific-pathogen-free "
                              "chickens based on detection of yolk antibody", "Reticuloendotheliosis virus (REV) is"),
    "page-peerj-oa-article": ("F", "The state of OA: a large-scale analysis of the prevalence and impact of Open Access "
                              "articles", "Despite growing interest in Open Access (OA)"),
    "page-elife-article": ("F", "Parallel visual circuitry in a basal chordate", None),  # its abstract box is empty
    "page-nature-article": ("F", "More than 100 scientific journals have disappeared from the Internet",
                            "Researchers have identified dozens of open-access"),
    "page-first-monday-ojs3-landingpage": ("A", "Surveillance, stigma & sociotechnical design for HIV",
                                           "Online dating and hookup platforms have fundamentally"),
    "page-dlib-05vanhyning": ("F", "Transforming Libraries and Archives through Crowdsourcing",
                              "This article will showcase the aims and research goals"),
    "page-sd-S221450951630047X": ("A", "Performance assessment of natural pozzolan roller compacted concrete "
                                  "pavements", "Concrete pavement is cost effective and beneficial"),
    "page-acm-2043155.2043156-abs": ("A", "The 7% rule: fact, fiction, or misunderstanding",
                                     "In 1971, Albert Mehrabian published a book"),
    "page-zenodo-1196821": ("O", "PsPM-SC4B: SCR, ECG, EMG, PSR and respiration measurements in a delay fear "
                            "conditioning task with auditory CS and electrical US",
                            "This dataset includes pupil size response (PSR)"),
    "page-app-pan-pl-app011052023": ("A", "Novel pneumatic features in the ribs of the sauropod dinosaur "
                                     "Brachiosaurus altithorax", "Pneumatic dorsal ribs are known for many sauropods"),
    "page-pangaea-836178": ("O", "Hydrological and meteorological investigations in a lake near Kangerlussuaq, west "
                            "Greenland", "Few hydrological studies have been made in Greenland"),
    "page-nature-nature01353-paywalled": ("A", "Single-nanowire electrically driven lasers",
                                          "Electrically driven semiconductor lasers are used"),
    "page-ieee-7976317-authors": ("A", "Block Design-Based Key Agreement for Group Data Sharing in Cloud Computing",
                                  "Data sharing in cloud computing enables multiple participants"),
    "page-inderscience-EG.2020.108455-abs": ("A", "E-government in the public cloud: requirements and opportunities",
                                             "Cloud computing promises various advantages"),
    "page-hindawi-ija-2014-125258": ("F", "Effect of Seed Distribution and Population on Maize (Zea mays L.) Grain "
                                     "Yield", "Maize planting is normally accomplished by hand"),
    "page-biorxiv-696633v1": ("A", "Sub-nucleosomal organization in urine cell-free DNA",
                              "Cell-free DNA (cfDNA) in urine is a promising"),
    "page-plosone-0016836-ambra-2011-zotero-snapshot": (
        "F", "Cooperation and Contagion in Web-Based, Networked Public Goods Experiments",
        "A longstanding idea in the literature on human cooperation"),
    "page-nature-nature13322-legacy-2014": ("F", "Negative regulation of the NLRP3 inflammasome by A20 protects against "
                                            "arthritis",  # a letter: its summary paragraph is its abstract
                                            "Rheumatoid arthritis is a chronic autoinflammatory"),
    "page-sd-S0142961204003357-legacy-2010-ezproxy": ("F", "Inkjet printing of viable mammalian cells",
                                                      "The purpose of this study was to explore"),
    "page-springerlink-BF01833294-legacy-2010": ("A", "On the use of linear graph theory in multibody system dynamics",
                                                 "Multibody dynamics involves the generation and solution"),
    "page-cambridge-sus.2025.10042": ("F", "Wellbeing cost of carbon", "Non-Technical Summary"),
    "page-emerald-02640470410570802-paywall": ("A", "Access in an increasingly digital world",
                                               "This paper discusses the importance of providing"),
    "page-jama-archgenpsychiatry.2010.116": ("F", "Pilot Study of Psilocybin Treatment for Anxiety in Patients With "
                                             "Advanced-Stage Cancer", None),  # abstract on another tab
    "page-mitpress-neco.1997.9.8.1735-paywall": ("A", "Long Short-Term Memory",
                                                 "Learning to store information over extended time intervals"),
    "page-oup-pnasnexus-pgac024": ("F", "Exploration of immunological responses underpinning severe fever with "
                                   "thrombocytopenia syndrome virus infection reveals IL-6 as a therapeutic target in "
                                   "an immunocompromised mouse model", "Dabie bandavirus (previously severe fever"),
    "page-sage-0018720814547570": ("F", "Trust in Automation: Integrating Empirical Evidence on Factors That Influence "
                                   "Trust", "We systematically review recent empirical research"),
    "page-tandf-0144929X.2019.1578828-paywall": ("A", "Recognise misinformation and verify before sharing: a reasoned "
                                                 "action and information literacy perspective",
                                                 "The menace of misinformation online"),
    "page-psychiatryonline-ajp.2006.163.11.1905": ("F", "Acute and Longer-Term Outcomes in Depressed Outpatients "
                                                   "Requiring One or Several Treatment Steps: A STAR*D Report",
                                                   "This report describes the participants"),
    "page-lww-inpj-0972-6748.57865": ("F", "Event-related potential: An overview",
                                      "Electroencephalography (EEG) provides an excellent"),
    "page-nature-s41467-025-67227-0-2026": ("F", "Programmable Assembly of Multistranded Helices in Water",
                                            "Sequence-specific conformational changes underpin"),
    "page-springerlink-s12525-016-0233-2-paywall-2026": (
        "A", "The influence of information overload on the development of trust and purchase intention based on online "
        "product reviews in a mobile vs. web environment: an empirical investigation",
        "Information overload has been studied extensively"),
    "page-sd-S2666557326000194-2026": ("F", "Student motivation and need satisfaction in GenAI-supported classrooms: A "
                                       "self-determination theory perspective", "This study examines how generative AI"),
    "page-wiley-mar.21498-2026": ("F", "When do you trust AI? The effect of number presentation detail on consumer trust "
                                  "and acceptance of AI recommendations", "When do consumers trust artificial"),
    "page-acm-3544548.3581058-2026": ("F", "Who Should I Trust: AI or Myself? Leveraging Human and AI Correctness "
                                      "Likelihood to Promote Appropriate Trust in AI-Assisted Decision-Making",
                                      "In AI-assisted decision-making, it is critical"),
}


def squash(text: str) -> str:
    return "".join(text.split())


@pytest.fixture(scope="module")
def fetched(replay_server, corpus_page_fetches):
    replay, _ = replay_server
    redirects = [e for e in replay.by_resource("doi_redirect") if e["_manifest"] != "pages3.jsonl"]
    by_doi = corpus_page_fetches.by_doi()
    pages = {e["url"]: e for e in replay.by_resource("publisher_page")}
    return {pages[e["headers"]["Location"]]["name"]: (e["ids"]["doi"], by_doi.get(e["ids"]["doi"].upper()))
            for e in redirects}


def test_every_doi_redirect_leads_to_a_page_in_the_table(fetched) -> None:
    assert sorted(fetched) == sorted(PAGES)


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_reached_by_doi(name: str, fetched) -> None:
    kind, title, abstract = PAGES[name]
    doi, pub = fetched[name]
    assert pub is not None, f"no publication for {doi}"
    assert pub.doi.content == doi.upper()
    assert pub.visited_sites, "the page was not visited"
    assert squash(pub.title.content) == squash(title)
    if abstract is not None:
        assert pub.abstract.content.startswith(abstract) or squash(abstract) in squash(pub.abstract.content[:300])
    if kind == "F":
        assert len(pub.fulltext.content) >= 2000
        assert pub.fulltext.type is PartType.doi  # from the page's rule, not the cleaned page (webpage)
        assert pub.fulltext.content.startswith(pub.title.content)
    else:  # nothing taken from the page as full text (First Monday's comes from the galley its landing page links)
        assert pub.fulltext.content == "" or pub.fulltext.url != pub.visited_sites[0].url


# ----------------------------------------------------------------------------------------------------- block pages


def _block_server(tls: TlsInterceptor, page_url: str, status: int, body: bytes) -> LoopbackServer:
    """doi.org's redirect to a recorded block page, served with its recorded status."""

    page = urlsplit(page_url)

    def handler(req):
        host = req.headers.get("Host", "").split(":")[0]
        if host == "doi.org":
            return Reply(302, b"", None, {"Location": page_url})
        if host == page.hostname and req.path == page.path:
            return Reply(status, body, "text/html; charset=utf-8")
        return Reply(404, "not recorded", "text/plain")

    return LoopbackServer({"/*": handler}, tls=tls)


@pytest.mark.parametrize(("entry_name", "doi", "block"), [
    ("page-pubmed-bot-gate-pow-2026", "10.1234/blocked.gate", "PubMed bot check"),
    ("pdf-pnas.2307803120.challenge-page", "10.1073/pnas.2307803120", "Cloudflare browser check"),
])
def test_block_page_gives_nothing_and_a_fetch_exception(entry_name, doi, block, replay_server, caplog):
    replay, _ = replay_server
    entry = next(e for e in replay.entries if e["name"] == entry_name)
    tls = TlsInterceptor()
    # the gate is recorded with 203, the challenge with 403; a 200 is what such gates also answer, and the harder case
    with _block_server(tls, entry["url"], 200 if entry["status"] >= 400 else entry["status"],
                       replay.body(entry)) as server:
        server.ca_file = tls.ca_file
        with caplog.at_level(logging.WARNING):
            [pub] = fetch_all(server, [doi])
    tls.close()
    assert (pub.title.content, pub.abstract.content, pub.fulltext.content) == ("", "", "")
    assert pub.state.fetch_exception
    assert pub.visited_sites == []
    assert any(block in r.getMessage() and entry["url"] in r.getMessage() for r in caplog.records)
