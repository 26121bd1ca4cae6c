"""Tests for pubfetch.metadata.extractors.target: what metadata records are for (LOCKSS' MetadataTarget)."""

from __future__ import annotations

import pytest

from pubfetch.metadata.extractors import (
    MetadataTarget,
    Purpose,
)

# --- targets -------------------------------------------------------------------------------------------------------


def test_metadata_target_purposes_and_format() -> None:
    assert [p.value for p in Purpose] == ["Any", "DOI", "OpenURL", "Article"]
    assert MetadataTarget.article().is_article() and not MetadataTarget.any().is_article()
    assert (MetadataTarget.doi().purpose, MetadataTarget.open_url().purpose) == (Purpose.DOI, Purpose.OPENURL)
    target = MetadataTarget("Any", format="application/pdf", include_files_changed_after=5)
    assert (target.purpose, target.format, target.include_files_changed_after) == (Purpose.ANY, "application/pdf", 5)
    with pytest.raises(ValueError, match="non-empty string"):
        MetadataTarget("")
    with pytest.raises(ValueError, match="include_files_changed_after"):
        MetadataTarget(include_files_changed_after=-1)


def test_metadata_target_takes_any_purpose_string() -> None:
    """LOCKSS' MetadataTarget(String purpose): any purpose; the four known names are the Purpose members."""
    custom = MetadataTarget("Sometimes", format="text/html")
    assert (custom.purpose, custom.purpose_name, custom.is_article()) == ("Sometimes", "Sometimes", False)
    assert MetadataTarget("Article").purpose is Purpose.ARTICLE and MetadataTarget("Article").is_article()
    assert MetadataTarget("DOI").purpose_name == "DOI" and MetadataTarget(Purpose.OPENURL).purpose is Purpose.OPENURL
    assert MetadataTarget("Sometimes") == MetadataTarget("Sometimes", None, 0) != custom
    assert MetadataTarget("article").purpose == "article"  # purposes are case-sensitive, as in LOCKSS
