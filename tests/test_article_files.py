"""Tests for pubfetch.metadata.article_files: the files of one article labelled with LOCKSS' role strings, and its
full-text slot (spec lockss.md section 5)."""

from __future__ import annotations

import pytest

from pubfetch.metadata import article_files as afm
from pubfetch.metadata.article_files import (
    ALL_ROLES,
    FULL_TEXT_ROLES_BY_PREFERENCE,
    ArticleFiles,
    is_known_role,
)
from pubfetch.metadata.sources import CachedUrl

HTML = "text/html"
PDF = "application/pdf"


# --- ArticleFiles (section 5) --------------------------------------------------------------------------------------


def test_role_strings_are_the_lockss_ones() -> None:
    assert ALL_ROLES == (
        "Abstract", "References", "Citation", "CitationBibtex", "CitationRis", "CitationEndnote",
        "SupplementaryMaterials", "Figures", "FiguresTables", "Tables", "FullTextHtml", "FullTextXml", "FullTextEpub",
        "FullTextMobile", "FullTextHtmlLanding", "FullTextPdfFile", "FullTextPdfLanding", "ArticleMetadata",
        "IssueMetadata", "ArticleHandle",
    )
    assert (afm.ROLE_FULL_TEXT_PDF, afm.ROLE_ARTICLE_METADATA, afm.ROLE_FIGURES_TABLES) == (
        "FullTextPdfFile", "ArticleMetadata", "FiguresTables")
    assert is_known_role("Abstract") and not is_known_role("abstract")


def test_full_text_preference_is_html_pdf_epub_xml() -> None:
    assert FULL_TEXT_ROLES_BY_PREFERENCE == ("FullTextHtml", "FullTextPdfFile", "FullTextEpub", "FullTextXml")


def test_article_files_is_empty_only_without_full_text_and_roles() -> None:
    cu = CachedUrl("https://x/a", HTML, lambda: b"")
    assert ArticleFiles().is_empty()
    with_full_text = ArticleFiles()
    with_full_text.set_full_text_cu(cu)
    assert not with_full_text.is_empty() and with_full_text.roles() == []
    with_role = ArticleFiles()
    with_role.set_role_cu(afm.ROLE_ABSTRACT, cu)
    assert not with_role.is_empty() and with_role.full_text_cu is None and with_role.full_text_url is None
    with_role.set_role(afm.ROLE_ABSTRACT, None)
    assert with_role.is_empty()


def test_roles_map_to_cached_urls_or_any_object() -> None:
    cu = CachedUrl("https://x/a.pdf", PDF, lambda: b"")
    af = ArticleFiles(cu)
    af.set_role_cu(afm.ROLE_FULL_TEXT_PDF, cu)
    af.set_role(afm.ROLE_ARTICLE_HANDLE, {"handle": "10.1/x"})
    assert af.get_role_cu(afm.ROLE_FULL_TEXT_PDF) is cu
    assert af.get_role_url(afm.ROLE_FULL_TEXT_PDF) == "https://x/a.pdf"
    assert af.get_role(afm.ROLE_ARTICLE_HANDLE) == {"handle": "10.1/x"}
    assert af.get_role_cu(afm.ROLE_ARTICLE_HANDLE) is None and af.get_role_url(afm.ROLE_ABSTRACT) is None
    assert af.has_role(afm.ROLE_ARTICLE_HANDLE) and not af.has_role(afm.ROLE_ABSTRACT)
    assert af.roles() == ["FullTextPdfFile", "ArticleHandle"]
    assert af.to_json() == {"full_text": "https://x/a.pdf",
                            "roles": {"ArticleHandle": "{'handle': '10.1/x'}", "FullTextPdfFile": "https://x/a.pdf"}}
    with pytest.raises(ValueError, match="non-empty string"):
        af.set_role("", cu)
