"""The parts of a publication and the small records they hold: when a string or list part is usable, final and
empty, what a part records about its source, its JSON forms, the terms and authors, and visited sites equal by the
link identity PubFetcher uses."""

import pytest

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import (
    Author,
    CorrespAuthor,
    ListPart,
    MeshTerm,
    MinedTerm,
    StringPart,
    VisitedSite,
    link_identity,
)
from support.clock import FixedClock

ARGS = FetcherArgs()
T = PartType


def test_mined_term_frequency():
    t = MinedTerm("gene", 5, "u")
    assert t.frequency(100) == 0.05
    assert t.frequency(2) == 1.0
    assert t.frequency(0) == 0.0


def test_a_string_part_records_its_content_type_trimmed_url_and_time() -> None:
    part = StringPart(PartName.title)
    assert part.status(ARGS) == "empty"
    part.set("A title", T.pubmed_xml, " https://x/ ", FixedClock(1_600_000_000_123))
    assert (part.content, part.type, part.url, part.timestamp) == ("A title", T.pubmed_xml, "https://x/",
                                                                   1_600_000_000_123)
    assert part.timestamp_human == "2020-09-13T12:26:40.123Z"
    assert (part.size, part.plain(), part.status(ARGS)) == (7, "A title", "final")


@pytest.mark.parametrize(("name", "short", "long"), [
    (PartName.title, "abc", "abcd"),
    (PartName.theAbstract, "x" * 199, "x" * 200),
    (PartName.fulltext, "x" * 1999, "x" * 2000),
    (PartName.pmid, "", "1"),
])  # fmt: skip
def test_string_parts_are_usable_from_their_minimum_length(name: PartName, short: str, long: str) -> None:
    part = StringPart(name)
    part.set(short, T.doi, "u")
    assert not part.is_usable(ARGS)
    part.set(long, T.doi, "u")
    assert part.is_usable(ARGS) and part.is_final(ARGS)


def test_a_usable_part_of_a_non_final_type_is_non_final() -> None:
    part = StringPart(PartName.title)
    part.set("A title", T.citation, "u")
    assert part.is_usable(ARGS) and part.status(ARGS) == "non-final"


def test_a_fulltext_no_better_than_a_webpage_is_never_usable() -> None:
    part = StringPart(PartName.fulltext)
    part.set("x" * 5000, T.webpage, "u")
    assert not part.is_usable(ARGS) and part.status(ARGS) == "non-usable"


def test_list_parts_are_usable_from_their_minimum_size_and_written_as_a_list() -> None:
    keywords = ListPart(PartName.keywords)
    keywords.set(["marsh"], T.europepmc, "u")
    assert not keywords.is_usable(ARGS)
    keywords.set(["marsh", "sediment"], T.europepmc, "u")
    assert keywords.is_final(ARGS) and keywords.size == 2 and keywords.plain() == "[marsh; sediment]"
    efo = ListPart(PartName.efo)
    efo.set([MinedTerm("cell", 2, "http://efo/1")], T.europepmc, "u")
    assert efo.is_final(ARGS) and efo.plain() == "[cell]"


def test_string_part_json_with_and_without_the_computed_fields() -> None:
    part = StringPart(PartName.title)
    part.set("A title", T.doi, "https://doi.org/x", FixedClock(5))
    assert part.to_json(ARGS) == {"content": "A title", "type": "doi", "url": "https://doi.org/x", "timestamp": 5,
                                  "timestampHuman": "1970-01-01T00:00:00.005Z", "size": 7, "empty": False,
                                  "usable": True, "final": True}
    stored = part.to_json(None)
    assert stored == {"content": "A title", "type": "doi", "url": "https://doi.org/x", "timestamp": 5}
    loaded = StringPart(PartName.title)
    loaded.load_json(stored)
    assert loaded == part


@pytest.mark.parametrize(("name", "items"), [
    (PartName.keywords, ["marsh", "sediment"]),
    (PartName.mesh, [MeshTerm("Humans", False, "D006801"), MeshTerm("Software", True, "D012984")]),
    (PartName.go, [MinedTerm("protein binding", 3, "http://purl.obolibrary.org/obo/GO_0005515")]),
])  # fmt: skip
def test_list_part_json_round_trip_keeps_the_item_kind(name: PartName, items: list) -> None:
    part = ListPart(name)
    part.set(items, T.pubmed_xml, "u", FixedClock(9))
    loaded = ListPart(name)
    loaded.load_json(part.to_json(None, computed=False))
    assert loaded == part and loaded.items == items


def test_terms_and_authors_json_round_trip() -> None:
    mesh = MeshTerm("Software", True, "D012984")
    assert mesh.to_json() == {"term": "Software", "majorTopic": True, "uniqueId": "D012984"}
    assert MeshTerm.from_json(mesh.to_json()) == mesh and str(mesh) == "Software"
    mined = MinedTerm("cell", 4, "http://efo/1")
    assert MinedTerm.from_json(mined.to_json()) == mined and MinedTerm.from_json({"term": "x"}).count == 1
    author = Author("Silva", "Ana", "", "0000-0001", ["Univ X"])
    assert author.to_json() == {"family": "Silva", "given": "Ana", "literal": "", "orcid": "0000-0001",
                                "affiliations": ["Univ X"]}
    assert Author.from_json(author.to_json()) == author
    corresp = CorrespAuthor("Ana Silva", email="ana@x.org")
    assert CorrespAuthor.from_json({"name": "Ana Silva", "email": "ana@x.org", "phone": None}) == corresp
    assert CorrespAuthor().is_empty() and not CorrespAuthor(uri="https://a.example").is_empty()


def test_authors_stored_by_earlier_versions_load_with_their_names_split() -> None:
    """Earlier versions stored the whole name in "name" beside family and given; a name without a family name (a
    publisher page's, a collective's) is split now as it is when read."""
    person = {"name": "Ana M. Silva", "given": "Ana M.", "family": "Silva", "orcid": "0000-0001", "affiliations": []}
    assert Author.from_json(person) == Author("Silva", "Ana M.", "", "0000-0001", [])
    page = {"name": "Matthew J. Kourakis", "given": "", "family": "", "orcid": "", "affiliations": ["UCSB"]}
    assert Author.from_json(page) == Author("Kourakis", "Matthew J.", "", "", ["UCSB"])
    collective = {"name": "ASPIRE Investigators", "given": "", "family": ""}
    assert Author.from_json(collective) == Author(literal="ASPIRE Investigators")


@pytest.mark.parametrize(("url", "identity"), [
    ("https://a.example/p?q=1#top", "a.example/p?q=1"),
    (" http://user@a.example:8080/p ", "user@a.example:8080/p"),
    ("a.example/p", "a.example/p"),
])  # fmt: skip
def test_link_identity_ignores_scheme_and_fragment(url: str, identity: str) -> None:
    assert link_identity(url) == identity


def test_visited_sites_are_equal_by_link_identity_and_round_trip_through_json() -> None:
    a = VisitedSite("http://a.example/p#x", T.doi, "https://doi.org/10.1/x", 1)
    b = VisitedSite("https://a.example/p", T.link, "", 2)
    assert a == b and len({a, b}) == 1
    assert a != VisitedSite("https://a.example/q", T.doi)
    back = VisitedSite.from_json(a.to_json())
    assert (back.url, back.type, back.from_url, back.timestamp) == (a.url, a.type, a.from_url, a.timestamp)
