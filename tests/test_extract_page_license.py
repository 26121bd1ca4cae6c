"""The licence a publisher page states in its head: a Dublin Core rights tag first, else a ``rel=license`` link."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from pubfetch.extract.page_license import page_license


def license_of(head: str) -> tuple[str, str]:
    return page_license(BeautifulSoup(f"<html><head>{head}</head><body><p>text</p></body></html>", "html.parser"))


@pytest.mark.parametrize("name", ["dc.rights", "DC.Rights", "dcterms.license", "dcterms.rights", "dc.rights.license"])
def test_a_dublin_core_rights_tag_gives_the_licence_with_its_space_collapsed(name: str) -> None:
    assert license_of(f'<meta name="{name}" content="  CC   BY 4.0 ">') == ("CC BY 4.0", "dc")


def test_a_license_link_is_the_fallback() -> None:
    assert license_of('<link rel="License" href=" https://creativecommons.org/licenses/by/4.0/ ">') == \
        ("https://creativecommons.org/licenses/by/4.0/", "link")


def test_the_meta_tag_wins_over_the_link_wherever_they_stand() -> None:
    head = '<link rel="license" href="https://a.example/l"><meta name="dc.rights" content="All rights reserved">'
    assert license_of(head) == ("All rights reserved", "dc")


def test_empty_tags_and_other_links_name_no_licence() -> None:
    assert license_of('<meta name="dc.rights" content=" "><link rel="license"><link rel="stylesheet" href="s.css">'
                      '<meta name="description" content="cc by">') == ("", "")
