"""Tests for pubfetch.metadata.descriptors: the LOCKSS built-in plugin parameters in their canonical forms, and
which of them are definitional."""

from __future__ import annotations

import pytest

from pubfetch.metadata.descriptors import BUILTIN_DESCRIPTORS
from pubfetch.metadata.params import ParamType

DEFINITIONAL = ["base_url", "base_url2", "year", "volume", "volume_name", "issue_range", "num_issue_range", "issue_set",
                "journal_dir", "journal_abbr", "journal_id", "journal_issn", "publisher_name", "oai_request_url",
                "oai_spec"]
NON_DEFINITIONAL = ["user_pass", "pub_down", "pub_never", "au_closed", "crawl_proxy", "nc_interval",
                    "crawl_test_substance_threshold"]


def test_builtin_descriptors_definitional_and_not() -> None:
    assert [k for k, d in BUILTIN_DESCRIPTORS.items() if d.definitional] == DEFINITIONAL
    assert [k for k, d in BUILTIN_DESCRIPTORS.items() if not d.definitional] == NON_DEFINITIONAL
    assert BUILTIN_DESCRIPTORS["volume"].type is ParamType.POS_INT


CANONICAL = [
    # key, type code, display name, size, definitional, default only (the seed page's canonical forms)
    ("base_url", 3, "Base URL", 40, True, False), ("base_url2", 3, "Second Base URL", 40, True, False),
    ("year", 4, "Year", 4, True, False), ("volume", 6, "Volume No.", 8, True, False),
    ("volume_name", 1, "Volume Name", 20, True, False), ("issue_range", 7, "Issue Range", 20, True, False),
    ("num_issue_range", 8, "Numeric Issue Range", 20, True, False), ("issue_set", 9, "Issue Set", 20, True, False),
    ("journal_dir", 1, "Journal Directory", 40, True, False), ("journal_abbr", 1, "Journal Abbreviation", 10, True, False),
    ("journal_id", 1, "Journal Identifier", 40, True, False), ("journal_issn", 1, "Journal ISSN", 20, True, False),
    ("publisher_name", 1, "Publisher Name", 40, True, False), ("oai_request_url", 3, "OAI Request URL", 40, True, False),
    ("oai_spec", 1, "OAI Spec", 40, True, False), ("user_pass", 10, "Username:Password", 30, False, False),
    ("pub_down", 5, "Pub Down", 4, False, True), ("pub_never", 5, "Pub Never", 4, False, True),
    ("au_closed", 5, "AU Closed", 4, False, True), ("crawl_proxy", 1, "Crawl Proxy", 40, False, True),
    ("nc_interval", 12, "Crawl Interval", 10, False, True),
    ("crawl_test_substance_threshold", 1, "Crawl Test Substance Threshold", 20, False, True),
]


@pytest.mark.parametrize(("key", "code", "display", "size", "definitional", "default_only"), CANONICAL,
                         ids=[c[0] for c in CANONICAL])
def test_builtin_descriptor_canonical_forms(key: str, code: int, display: str, size: int, definitional: bool,
                                            default_only: bool) -> None:
    d = BUILTIN_DESCRIPTORS[key]
    assert (int(d.type), d.display_name, d.size, d.definitional, d.default_only) == (
        code, display, size, definitional, default_only)


def test_builtin_descriptor_canonical_form_base_url() -> None:
    d = BUILTIN_DESCRIPTORS["base_url"]
    assert (d.type, d.display_name, d.description, d.size) == (
        ParamType.URL, "Base URL", "Usually of the form http://<journal-name>.com/", 40)
