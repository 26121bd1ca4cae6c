"""What every output form shares: format and kind names with a message naming the valid ones, PubFetcher's part and
type labels, the ``--out-part`` selection and its one-line layouts, the version block and the default parameters."""

from __future__ import annotations

import pytest

from pubfetch._version import __version__
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import PartName, PartType
from pubfetch.output.common import (
    PART_LABELS,
    TYPE_LABELS,
    Format,
    as_format,
    check_kind,
    in_order,
    is_id_only,
    is_one_liner,
    resolve_args,
    select_parts,
    type_label,
    version_info,
)


def test_one_liner_rules() -> None:
    parts = select_parts
    assert is_one_liner(parts(["title"]), True) and not is_one_liner(parts(["title"]), False)
    assert not is_one_liner(parts(["abstract"]), True) and not is_one_liner(parts(["fulltext"]), True)
    assert is_one_liner(parts(["doi", "pmcid", "pmid"]), True) and is_id_only(parts(["pmid", "pmid"]))
    assert not is_one_liner(parts(["pmid", "keywords"]), True) and not is_one_liner(None, True)
    assert parts(["theAbstract", "abstract", "pmid"]) == [PartName.theAbstract, PartName.pmid]
    with pytest.raises(ValueError, match="unknown publication part 'abstrakt'"):
        parts(["abstrakt"])


def test_formats_by_name_and_their_families() -> None:
    assert as_format("metadata-jsonl") is Format.metadata_jsonl and as_format(Format.html) is Format.html
    assert [f.value for f in Format if f.is_json] == ["json", "metadata"]
    assert [f.value for f in Format if f.is_jsonl] == ["jsonl", "metadata-jsonl", "chunks"]
    assert [f.value for f in Format if f.is_citation] == ["csljson", "bibtex", "ris"]


def test_an_unknown_format_or_kind_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="unknown output format 'xml': expected one of text, html, json, jsonl"):
        as_format("xml")
    assert check_kind("doc") == "doc"
    with pytest.raises(ValueError, match="unknown entry kind 'page': expected one of publication, webpage, doc"):
        check_kind("page")


def test_every_part_and_type_has_pubfetchers_label() -> None:
    assert set(PART_LABELS) == set(PartName) and set(TYPE_LABELS) == set(PartType)
    assert (type_label(PartType.citation), type_label(PartType.na)) == ("HighWire", "NA")
    assert PART_LABELS[PartName.theAbstract] == "Abstract"


def test_selected_parts_are_written_in_the_fixed_part_order() -> None:
    assert in_order([PartName.fulltext, PartName.title, PartName.pmid]) == [PartName.pmid, PartName.title,
                                                                            PartName.fulltext]
    assert select_parts(None) is None and select_parts([]) == []


def test_the_version_block_names_pubfetch() -> None:
    assert version_info() == {"name": "pubfetch", "url": "https://pypi.org/project/pubfetch/", "version": __version__}
    assert version_info("9.9")["version"] == "9.9"


def test_parameters_default_to_pubfetchers() -> None:
    mine = FetcherArgs(title_min_length=1)
    assert resolve_args(mine) is mine
    assert resolve_args(None) == FetcherArgs()
