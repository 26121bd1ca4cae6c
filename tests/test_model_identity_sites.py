"""What the identity check leaves on an entry: rejected and unverified sites in the entry's JSON (and entries written
before they existed), a rejected URL recognised however it is asked, and unverified sites settled by the titles of
other sources (confirmed, or their parts dropped and the title they kept out offered again)."""

from __future__ import annotations

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.identity import Reason
from pubfetch.model.identity_sites import UnverifiedSite
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.model.rich import RichName, Section
from support.clock import FixedClock
from support.publications import checked_publication

ARGS = FetcherArgs()
PAGE = "https://old.example.org/article/7"
EPMC = "https://www.ebi.ac.uk/europepmc/webservices/rest/search?query=x"


def test_rejected_and_unverified_sites_round_trip_through_json() -> None:
    pub = checked_publication()
    doc = pub.to_json()
    assert doc["rejectedSites"] == [{
        "url": "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0213978", "startUrl": "",
        "type": "doi", "from": "https://doi.org/10.5555/identity.redirect", "reason": "id", "pmid": "", "pmcid": "",
        "doi": "10.1371/JOURNAL.PONE.0213978", "title": "Assessment on <reticuloendotheliosis> virus & co",
        "timestamp": 1_700_000_000_000, "timestampHuman": "2023-11-14T22:13:20Z"}]
    assert doc["unverifiedSites"][0]["url"] == PAGE
    again = Publication.from_json(doc)
    assert again.rejected_sites == pub.rejected_sites and again.unverified_sites == pub.unverified_sites


def test_an_entry_written_before_the_check_reads_without_sites() -> None:
    doc = checked_publication().to_json(computed=False)
    del doc["rejectedSites"], doc["unverifiedSites"]
    old = Publication.from_json(doc)
    assert old.rejected_sites == [] and old.unverified_sites == []


def test_a_rejected_url_is_known_over_either_scheme_and_once() -> None:
    pub = checked_publication()
    assert pub.rejected("http://journals.plos.org/plosone/article?id=10.1371/journal.pone.0213978#abstract")
    assert pub.rejected("https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0213979") is None
    pub.reject_site(pub.rejected_sites[0])
    assert len(pub.rejected_sites) == 1 and pub.new_rejections == 1


def _unverified_page(title_on_page: str) -> Publication:
    pub = Publication(clock=FixedClock())
    pub.set_doi("10.5555/x", PartType.external, "", ARGS)
    pub.add_unverified_site(UnverifiedSite(PAGE, PartType.doi, ("Page menu", title_on_page)))
    pub.set_title(title_on_page, PartType.doi, PAGE, ARGS)
    pub.set_abstract("Page abstract. " * 20, PartType.doi, PAGE, ARGS)
    pub.set_rich(RichName.sections, [Section("Methods", 1, "Text.")], PartType.doi, PAGE)
    return pub


def test_a_title_from_another_source_confirms_an_unverified_site() -> None:
    pub = _unverified_page("Parallel visual circuitry in a basal chordate")
    assert pub.settle_unverified(90, ARGS) == ([], [])  # no other title yet: it stays unverified
    pub.set_title("Parallel visual circuitry in a basal chordate.", PartType.oadoi, "https://api.unpaywall.org/x",
                  ARGS)
    confirmed, rejected = pub.settle_unverified(90, ARGS)
    assert [s.url for s in confirmed] == [PAGE] and rejected == []
    assert pub.abstract.url == PAGE and not pub.unverified_sites and not pub.title_offers


def test_another_title_drops_what_an_unverified_site_gave() -> None:
    pub = _unverified_page("Parallel visual circuitry in a basal chordate")
    pub.set_title("Deep learning", PartType.europepmc, EPMC, ARGS)  # kept out by the page's final title
    assert pub.title.url == PAGE
    confirmed, rejected = pub.settle_unverified(90, ARGS)
    assert confirmed == [] and [(s.url, s.reason, s.title) for s in rejected] == [(PAGE, Reason.TITLE, "Page menu")]
    assert pub.abstract.is_empty() and pub.sections.is_empty()
    assert (pub.title.content, pub.title.url) == ("Deep learning", EPMC)
    assert all(pub.part(name).url != PAGE for name in PartName)
    assert pub.rejected_sites == rejected and pub.new_rejections == 1


def test_a_reset_forgets_the_unverified_sites_with_their_parts_and_keeps_the_rejections() -> None:
    pub = checked_publication()
    pub.reset()
    assert pub.unverified_sites == [] and len(pub.rejected_sites) == 1
