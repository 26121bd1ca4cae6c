"""What the tests of the scholarly APIs' resources share: the settings that turn them on, and a bioRxiv preprint the
replay (tests/support/replay_apis.py) serves beside the recorded works.

No bioRxiv/medRxiv answer is recorded (../shared/corpus/README.md, "Gaps"): the ``details`` answer here is synthetic,
with exactly the fields ../shared/spec/apis-and-users.md lists for a ``collection`` item, for the preprint whose
Crossref record is recorded (``crossref-work-biorxiv-2024.04.01.587366-is-preprint-of``); its JATS full text is a small
synthetic article. The journal version's Crossref and OpenAlex works are the recorded ones.
"""

from __future__ import annotations

from support.replay import CorpusReplay

#: Every scholarly API on, with a key and contact addresses (the suite's runs leave them off: tests/conftest.py).
SCHOLARLY_ON = {"ask_crossref": True, "ask_openalex": True, "ask_datacite": True, "ask_biorxiv": True,
                "openalex_api_key": "test-key", "crossref_mailto": "curator@example.org",
                "datacite_mailto": "curator@example.org"}
#: Recorded Crossref and DataCite works (tests/support/replay_apis.py serves them)
CROSSREF_DOIS = ["10.1073/pnas.1414271111", "10.3389/fgene.2017.00147", "10.1101/2024.04.01.587366",
                 "10.1162/qss_a_00348", "10.1016/j.xgen.2025.100814", "10.1515/crelle-2013-0024"]
DATACITE_DOIS = ["10.5061/dryad.8515", "10.5438/6423", "10.1594/pangaea.721193"]

PREPRINT, PUBLISHED = "10.1101/2024.04.01.587366", "10.1016/j.xgen.2025.100814"
JATS_URL = "http://www.biorxiv.org/content/biorxiv/early/2024/04/01/2024.04.01.587366.source.xml"
BODY = "Prime editing installs variants at their endogenous loci. " * 40
JATS = (f"<article><front><article-meta><title-group><article-title>High-throughput screening of human genetic "
        f"variants by pooled prime editing</article-title></title-group></article-meta></front><body><sec><title>"
        f"Introduction</title><p>{BODY}</p></sec></body></article>").encode()


def details_item(version: str) -> dict:
    return {"doi": PREPRINT, "title": "High-throughput screening of human genetic variants by pooled prime editing",
            "authors": "Herger, M.; Kajba, C. M.; Buckley, M.", "author_corresponding": "Gregory M. Findlay",
            "author_corresponding_institution": "The Francis Crick Institute", "date": f"2024-04-0{version}",
            "version": version, "type": "new results", "license": "cc_by", "category": "genomics",
            "jatsxml": JATS_URL, "abstract": "Understanding the effects of rare genetic variants remains challenging.",
            "published": PUBLISHED, "server": "bioRxiv"}


def serve_preprint(replay: CorpusReplay) -> None:
    """The preprint's ``details`` answer (two versions) and its JATS full text, served by the replay."""
    replay.scholarly.add("biorxiv", PREPRINT, [details_item("1"), details_item("2")], replace=True)
    replay.answer(JATS_URL, JATS, "application/xml")
