"""The JSON forms of entries (pubfetch/output/jsonform.py): the full form reads back into the same entry, ``--plain``
keeps part contents only, a part selection keeps those parts in PubFetcher's order whatever order they were given,
and JSON text keeps non-ASCII characters as they are."""

from __future__ import annotations

import json

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.model.webpage import Webpage
from pubfetch.output.jsonform import dumps, entry_json, ids_json, publication_json

ARGS = FetcherArgs()
URL = "https://www.ebi.ac.uk/europepmc/"


def publication() -> Publication:
    pub = Publication()
    pub.set_pmid("31114920", PartType.europepmc, URL, ARGS)
    pub.set_title("\u00c9tude of caf\u00e9 genomics", PartType.europepmc, URL, ARGS)
    return pub


def test_the_full_form_reads_back_into_the_same_publication() -> None:
    pub = publication()
    doc = publication_json(pub, ARGS)
    back = Publication.from_json(json.loads(dumps(doc)))
    assert back.title.content == pub.title.content and back.title.type is PartType.europepmc
    assert publication_json(back, ARGS) == doc


def test_plain_keeps_part_contents_only() -> None:
    plain = publication_json(publication(), plain=True)
    assert plain["title"] == "\u00c9tude of caf\u00e9 genomics" and plain["pmid"] == "31114920"
    assert plain["keywords"] == [] and set(plain) == {name.value for name in PartName}


def test_a_part_selection_is_written_in_pubfetchers_order_without_the_metadata() -> None:
    chosen = publication_json(publication(), ARGS, parts=[PartName.title, PartName.pmid])
    assert list(chosen) == ["pmid", "title"]
    assert chosen["title"]["content"] == "\u00c9tude of caf\u00e9 genomics" and chosen["title"]["type"] == "europepmc"
    assert publication_json(publication(), plain=True, parts=[PartName.title]) == {
        "title": "\u00c9tude of caf\u00e9 genomics"}


def test_webpages_and_ids_have_their_own_forms() -> None:
    page = Webpage(start_url="https://tool.example/")
    assert entry_json("webpage", page, ARGS)["startUrl"] == "https://tool.example/"
    assert entry_json("webpage", page, plain=True)["startUrl"] == "https://tool.example/"
    ids = PublicationIds(pmid="31114920")
    assert ids_json(ids, plain=True) == {"pmid": "31114920", "pmcid": "", "doi": ""}
    assert ids_json(ids)["pmid"] == "31114920" and "pmidUrl" in ids_json(ids)


def test_json_text_keeps_characters_and_is_compact_for_json_lines() -> None:
    assert dumps({"t": "caf\u00e9"}) == '{\n  "t": "caf\u00e9"\n}'
    assert dumps({"t": "caf\u00e9", "n": [1, 2]}, pretty=False) == '{"t":"caf\u00e9","n":[1,2]}'
