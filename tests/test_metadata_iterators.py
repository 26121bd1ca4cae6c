"""Tests for the article iterators and their builder (spec lockss.md section 6)."""

from __future__ import annotations

import io
import re
import tarfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

import pytest

from pubfetch.metadata import article_files as afm
from pubfetch.metadata import fields as mf
from pubfetch.metadata.archival_unit import ArchivalUnit
from pubfetch.metadata.archives import ArchiveMemberSpec
from pubfetch.metadata.article_files import ArticleFiles
from pubfetch.metadata.au import AuConfig
from pubfetch.metadata.extractors import JatsXmlExtractor, MetadataTarget, Purpose
from pubfetch.metadata.iterators import (
    Spec,
    SubTreeArticleIterator,
    SubTreeArticleIteratorBuilder,
    check_replacement,
    java_replace_first,
)
from pubfetch.metadata.sources import CachedUrl, DirectorySource, MemorySource

HTML = "text/html"
PDF = "application/pdf"


def make_au(entries: dict[str, object], *, default_mime: str | None = None, params: dict[str, str] | None = None,
            descriptors: Iterable[str] = ()) -> ArchivalUnit:
    """An AU over in-memory content: ``{url: content_type}`` (body "x"), or ``{url: (body, type)}``."""
    source = MemorySource()
    for url, value in entries.items():
        if isinstance(value, tuple):
            source.add(url, value)
        else:
            source.add(url, b"x", value)  # type: ignore[arg-type]
    return ArchivalUnit(source, AuConfig.parse(params or {}, descriptors), default_mime_type=default_mime)


def urls(articles: Iterable[ArticleFiles]) -> list[str | None]:
    return [af.full_text_url for af in articles]


# --- Spec and SubTreeArticleIterator -------------------------------------------------------------------------------


def test_spec_refuses_roots_with_root_templates_and_pattern_with_template() -> None:
    with pytest.raises(ValueError, match="Can't set both roots and root templates"):
        Spec(roots=["https://x/"], root_templates=['"%s", base_url'])
    with pytest.raises(ValueError, match="Can't set both pattern and pattern_template"):
        Spec(pattern="a", pattern_template='"a"')
    with pytest.raises(ValueError, match="include_subtree_pattern and include_subtree_pattern_template"):
        Spec(include_subtree_pattern="a", include_subtree_pattern_template='"a"')
    with pytest.raises(TypeError, match="lists of strings"):
        Spec(roots="https://x/")
    with pytest.raises(ValueError, match="not a MIME type"):
        Spec(mime_type="html")


def test_no_roots_means_the_whole_au_url_sorted() -> None:
    au = make_au({"https://x/b": HTML, "https://x/a": HTML, "https://y/c": HTML})
    assert urls(SubTreeArticleIterator(au, Spec())) == ["https://x/a", "https://x/b", "https://y/c"]


def test_default_article_files_has_only_the_full_text() -> None:
    au = make_au({"https://x/a": HTML})
    (af,) = SubTreeArticleIterator(au)
    assert af.full_text_url == "https://x/a" and af.roles() == []


def test_roots_in_given_order_sorted_within_each_and_directory_bounded() -> None:
    au = make_au({"https://x/vol1/b": HTML, "https://x/vol1/a": HTML, "https://x/vol10/a": HTML,
                  "https://x/vol2/a": HTML, "https://x/vol1": HTML, "https://x/other": HTML})
    spec = Spec(roots=["https://x/vol2/", "https://x/vol1"])
    assert urls(SubTreeArticleIterator(au, spec)) == ["https://x/vol2/a", "https://x/vol1", "https://x/vol1/a",
                                                      "https://x/vol1/b"]


def test_root_templates_expand_with_the_au_parameters() -> None:
    au = make_au({"https://x/2019/a": HTML, "https://x/2020/a": HTML, "https://x/2020/b": HTML},
                 params={"base_url": "https://x/", "year": "2020"}, descriptors=["base_url", "year"])
    spec = Spec(root_templates=['"%s%d/", base_url, year'])
    iterator = SubTreeArticleIterator(au, spec)
    assert iterator.roots == ["https://x/2020/"]
    assert urls(iterator) == ["https://x/2020/a", "https://x/2020/b"]


def test_root_templates_missing_a_value_mean_the_whole_au(caplog: pytest.LogCaptureFixture) -> None:
    au = make_au({"https://x/2019/a": HTML, "https://x/2020/a": HTML},
                 params={"base_url": "https://x/"}, descriptors=["base_url", "year"])
    iterator = SubTreeArticleIterator(au, Spec(root_templates=['"%s%d/", base_url, year']))
    assert iterator.roots == []
    assert urls(iterator) == ["https://x/2019/a", "https://x/2020/a"]
    assert "expanded to no URL" in caplog.text


def test_pattern_is_found_unanchored_with_flags() -> None:
    au = make_au({"https://x/a/ART12.html": HTML, "https://x/a/toc.html": HTML, "https://x/art3": HTML})
    assert urls(SubTreeArticleIterator(au, Spec(pattern=r"art\d+"))) == ["https://x/art3"]
    assert urls(SubTreeArticleIterator(au, Spec(pattern=r"art\d+", pattern_flags=re.IGNORECASE))) == [
        "https://x/a/ART12.html", "https://x/art3"]
    assert urls(SubTreeArticleIterator(au, Spec(pattern=re.compile(r"toc")))) == ["https://x/a/toc.html"]


def test_pattern_template_quotes_parameter_values() -> None:
    au = make_au({"https://x.org/j1/art1": HTML, "https://xxorg/j1/art2": HTML, "https://x.org/j2/art3": HTML},
                 params={"base_url": "https://x.org/", "journal_id": "j1"}, descriptors=["base_url", "journal_id"])
    spec = Spec(pattern_template=r'"^%s%s/ART\d+$", base_url, journal_id', pattern_flags=re.IGNORECASE)
    assert urls(SubTreeArticleIterator(au, spec)) == ["https://x.org/j1/art1"]
    missing = make_au({"https://x.org/j1/art1": HTML}, params={"base_url": "https://x.org/"},
                      descriptors=["base_url", "journal_id"])
    assert urls(SubTreeArticleIterator(missing, spec)) == []


def test_mime_type_from_target_format_then_spec_then_plugin_default() -> None:
    au = make_au({"https://x/a": "TEXT/HTML; charset=UTF-8", "https://x/b.pdf": PDF, "https://x/c.xml": "text/xml"},
                 default_mime=PDF)
    assert urls(SubTreeArticleIterator(au, Spec())) == ["https://x/b.pdf"]
    assert urls(SubTreeArticleIterator(au, Spec(mime_type="text/html"))) == ["https://x/a"]
    assert urls(SubTreeArticleIterator(au, Spec(mime_type="Text/Html"))) == ["https://x/a"]
    target = MetadataTarget(Purpose.ANY, format="text/xml")
    assert urls(SubTreeArticleIterator(au, Spec(target=target, mime_type="text/html"))) == ["https://x/c.xml"]
    assert urls(SubTreeArticleIterator(au, Spec(mime_type=["text/xml", PDF]))) == ["https://x/b.pdf",
                                                                                  "https://x/c.xml"]
    assert urls(SubTreeArticleIterator(make_au({"https://x/a": HTML, "https://x/b.pdf": PDF}))) == [
        "https://x/a", "https://x/b.pdf"]


def test_cus_without_content_are_not_articles() -> None:
    au = make_au({"https://x/a": HTML})
    au.source.add("https://x/moved", b"", HTML, status=301)  # type: ignore[attr-defined]
    au.source.add("https://x/gone", b"", HTML, status=404)  # type: ignore[attr-defined]
    assert urls(SubTreeArticleIterator(au)) == ["https://x/a"]


def test_include_subtree_pattern_keeps_matching_subtrees_and_their_ancestors() -> None:
    au = make_au({"https://x/j/": HTML, "https://x/j/vol1/": HTML, "https://x/j/vol1/a": HTML,
                  "https://x/j/vol2/a": HTML, "https://x/j/vol1x": HTML, "https://x/k/vol1/a": HTML})
    spec = Spec(roots=["https://x/j/"], include_subtree_pattern=r"https://x/j/vol1/")
    assert urls(SubTreeArticleIterator(au, spec)) == ["https://x/j/", "https://x/j/vol1/", "https://x/j/vol1/a"]


def test_exclude_subtree_pattern_drops_matching_subtrees_and_include_wins() -> None:
    au = make_au({"https://x/j/vol1/a": HTML, "https://x/j/vol2/a": HTML, "https://x/j/vol2/b": HTML})
    exclude = Spec(roots=["https://x/j/"], exclude_subtree_pattern=r"https://x/j/vol2/")
    assert urls(SubTreeArticleIterator(au, exclude)) == ["https://x/j/vol1/a"]
    both = Spec(roots=["https://x/j/"], exclude_subtree_pattern=r"https://x/j/vol2/",
                include_subtree_pattern=r"https://x/j/vol2/")
    assert urls(SubTreeArticleIterator(au, both)) == ["https://x/j/vol2/a", "https://x/j/vol2/b"]
    exclude_template = Spec(exclude_subtree_pattern_template='"%svol1/", base_url')
    templated = make_au({"https://x/j/vol1/a": HTML, "https://x/j/vol2/a": HTML},
                        params={"base_url": "https://x/j/"}, descriptors=["base_url"])
    assert urls(SubTreeArticleIterator(templated, exclude_template)) == ["https://x/j/vol2/a"]


def test_files_changed_before_the_target_time_are_skipped() -> None:
    source = MemorySource()
    source.add("https://x/old", CachedUrl("https://x/old", HTML, lambda: b"", fetch_time=1000))
    source.add("https://x/new", CachedUrl("https://x/new", HTML, lambda: b"", fetch_time=3000))
    source.add("https://x/unknown", CachedUrl("https://x/unknown", HTML, lambda: b""))
    au = ArchivalUnit(source)
    target = MetadataTarget(include_files_changed_after=2000)
    assert urls(SubTreeArticleIterator(au, Spec(target=target))) == ["https://x/new", "https://x/unknown"]


def test_a_cu_that_raises_is_logged_and_skipped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "h").mkdir()
    for name in ("a.html", "b.html", "c.html"):
        (tmp_path / "h" / name).write_text("<html></html>")
    (tmp_path / "h" / "b.html.headers").write_text("not a header line\n")
    au = ArchivalUnit(DirectorySource(tmp_path))
    assert urls(SubTreeArticleIterator(au)) == ["https://h/a.html", "https://h/c.html"]
    assert "error processing https://h/b.html: SourceError" in caplog.text

    class Fussy(SubTreeArticleIterator):
        def is_article_cu(self, cu: CachedUrl) -> bool:
            if cu.url.endswith("a.html"):
                raise RuntimeError("cannot decide")
            return super().is_article_cu(cu)

    assert urls(Fussy(ArchivalUnit(MemorySource({"https://h/a.html": b"", "https://h/z.html": b""})))) == [
        "https://h/z.html"]
    assert "error processing https://h/a.html: RuntimeError: cannot decide" in caplog.text


def test_visit_article_cu_may_emit_zero_or_more_article_files() -> None:
    class Splitter(SubTreeArticleIterator):
        def visit_article_cu(self, cu: CachedUrl) -> list[ArticleFiles]:
            if cu.url.endswith("issue"):
                return [ArticleFiles(cu), ArticleFiles(cu), ArticleFiles(cu)]
            return []

    au = make_au({"https://x/issue": HTML, "https://x/toc": HTML})
    assert urls(Splitter(au)) == ["https://x/issue"] * 3


def _jats(title: str) -> bytes:
    return (f"<article><front><article-meta><title-group><article-title>{title}</article-title></title-group>"
            "</article-meta></front></article>").encode()


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("batch/", b"")  # a directory entry: not a member CU
        for name, body in members.items():
            archive.writestr(name, body)
    return buffer.getvalue()


def _tar_gz(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, body in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            archive.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


ARCHIVE_MEMBERS = {"batch/a1.xml": _jats("First"), "batch/a1.pdf": b"%PDF-1.4 x", "batch/a2.xml": _jats("Second")}


def archive_au() -> ArchivalUnit:
    return make_au({"https://x/2024/issue1.zip": (_zip(ARCHIVE_MEMBERS), "application/zip"),
                    "https://x/2024/issue2.tar.gz": (_tar_gz({"b1.xml": _jats("Third")}), "application/gzip"),
                    "https://x/2024/broken.zip": (b"not a zip", "application/zip"),
                    "https://x/2024/notes.xml": (_jats("Loose"), "application/xml")})


def test_archive_members_are_iterated_instead_of_the_archives(caplog: pytest.LogCaptureFixture) -> None:
    """LOCKSS' SubTreeArticleIterator with visitArchiveMembers: zip and tar members (ArchiveMemberSpec URLs
    ``<archive>!/<member>``) are the candidates; a broken archive is logged and skipped."""
    spec = Spec(mime_type="application/xml", visit_archive_members=True)
    assert urls(SubTreeArticleIterator(archive_au(), spec)) == [
        "https://x/2024/issue1.zip!/batch/a1.xml", "https://x/2024/issue1.zip!/batch/a2.xml",
        "https://x/2024/issue2.tar.gz!/b1.xml", "https://x/2024/notes.xml"]
    assert "https://x/2024/broken.zip" in caplog.text and "not a readable zip archive" in caplog.text
    assert urls(SubTreeArticleIterator(archive_au(), Spec(mime_type="application/xml"))) == [
        "https://x/2024/notes.xml"]
    pattern = Spec(mime_type="application/xml", pattern=r"\.zip!/.*a2\.xml$", visit_archive_members=True)
    assert urls(SubTreeArticleIterator(archive_au(), pattern)) == ["https://x/2024/issue1.zip!/batch/a2.xml"]


def test_an_archive_is_read_once_while_its_members_are_iterated_and_resolved() -> None:
    reads: list[int] = []
    body = _zip(ARCHIVE_MEMBERS)

    def load() -> bytes:
        reads.append(1)
        return body

    au = make_au({"https://x/2024/issue1.zip": (load, "application/zip")})
    builder = SubTreeArticleIteratorBuilder(au, Spec(visit_archive_members=True))
    builder.add_aspect(r"^(.+\.zip!/.+)\.xml$", "$1.xml", afm.ROLE_FULL_TEXT_XML, mime_types="application/xml")
    builder.add_aspect(replacements="$1.pdf", roles=afm.ROLE_FULL_TEXT_PDF)
    articles = list(builder.get_sub_tree_article_iterator())
    assert [af.get_role_url(afm.ROLE_FULL_TEXT_PDF) for af in articles] == [
        "https://x/2024/issue1.zip!/batch/a1.pdf", None]
    assert articles[0].get_role_cu(afm.ROLE_FULL_TEXT_PDF).content() == b"%PDF-1.4 x"
    assert len(reads) == 1


def test_archive_members_are_cached_urls_of_the_au() -> None:
    au = archive_au()
    member = au.make_cached_url("https://x/2024/issue1.zip!/batch/a1.pdf")
    assert member is not None and member.mime_type == "application/pdf" and member.content() == b"%PDF-1.4 x"
    assert au.has_content("https://x/2024/issue2.tar.gz!/b1.xml")
    assert not au.has_content("https://x/2024/issue1.zip!/batch/none.xml")
    assert au.make_cached_url("https://x/2024/notes.xml!/x") is None
    assert ArchiveMemberSpec.from_url("https://x/a.zip!/d/b.xml") == ArchiveMemberSpec("https://x/a.zip", "d/b.xml")
    assert ArchiveMemberSpec("https://x/a.zip", "d/b.xml").url == "https://x/a.zip!/d/b.xml"
    assert ArchiveMemberSpec.from_url("https://x/a.zip") is None


def test_builder_aspects_reach_other_members_of_the_same_archive() -> None:
    builder = SubTreeArticleIteratorBuilder(archive_au(), Spec(visit_archive_members=True))
    builder.add_aspect(r"^(.+\.zip!/.+)\.xml$", "$1.xml", afm.ROLE_FULL_TEXT_XML, mime_types="application/xml")
    builder.add_aspect(replacements="$1.pdf", roles=afm.ROLE_FULL_TEXT_PDF)
    first, second = builder.get_sub_tree_article_iterator()
    assert roles(first) == {"FullTextXml": "https://x/2024/issue1.zip!/batch/a1.xml",
                            "FullTextPdfFile": "https://x/2024/issue1.zip!/batch/a1.pdf"}
    assert roles(second) == {"FullTextXml": "https://x/2024/issue1.zip!/batch/a2.xml"}
    (am,) = JatsXmlExtractor().extract(MetadataTarget(), first.full_text_cu)
    assert am.get(mf.FIELD_ARTICLE_TITLE) == "First"


# --- Java replacement strings --------------------------------------------------------------------------------------


def test_java_replace_first() -> None:
    match = re.compile(r"/vol(\d+)/iss(\d+)/art(\d+)$").search("http://www.example.com/vol12/iss3/art45")
    assert java_replace_first(match, "/pdf/article_$1_$2_$3.pdf") == "http://www.example.com/pdf/article_12_3_45.pdf"
    assert java_replace_first(match, r"/cost/\$$1") == "http://www.example.com/cost/$12"
    assert java_replace_first(match, "/x$12") == "http://www.example.com/x122"  # $1 then "2": there is no group 12
    named = re.compile(r"/(?P<id>\d+)(\.full)?$").search("https://x/content/17.full")
    assert java_replace_first(named, "/${id}.pdf") == "https://x/content/17.pdf"
    assert java_replace_first(named, "/$1$2.pdf") == "https://x/content/17.full.pdf"
    plain = re.compile(r"/(\d+)(\.full)?$").search("https://x/content/17")
    assert java_replace_first(plain, "/$1$2.pdf") == "https://x/content/17.pdf"  # an unmatched group is ""
    with pytest.raises(ValueError, match="No group 4"):
        java_replace_first(match, "$4")
    with pytest.raises(ValueError, match="Illegal group reference"):
        java_replace_first(match, "$x")


def test_check_replacement() -> None:
    assert check_replacement("/pdf/$1_${name}_$12\\$3") == [1, "name", 12]
    for bad, message in (("$", "without a group"), ("a\\", "lone backslash"), ("${1}", "without a group")):
        with pytest.raises(ValueError, match=message):
            check_replacement(bad)


# --- builder -------------------------------------------------------------------------------------------------------

SITE_HTML = "http://www.example.com/content/jabc/v123/i1/{}.html"
SITE_PDF = "http://www.example.com/cgi-bin/download?jid=jabc&vol=123&iss=1&page={}"
SITE_ABSTRACT = "http://www.example.com/content/jabc/v123/i1/{}-abstract.html"


def site_au(htmls: Iterable[int], pdfs: Iterable[int], abstracts: Iterable[int] = ()) -> ArchivalUnit:
    entries: dict[str, object] = {SITE_HTML.format(p): HTML for p in htmls}
    entries.update({SITE_PDF.format(p): PDF for p in pdfs})
    entries.update({SITE_ABSTRACT.format(p): HTML for p in abstracts})
    return make_au(entries)


def site_a(au: ArchivalUnit, target: MetadataTarget | None = None) -> SubTreeArticleIteratorBuilder:
    builder = SubTreeArticleIteratorBuilder(au, Spec(target=target))
    builder.add_aspect(r"/content/([^/]+)/v([^/]+)/i([^/]+)/(\d+)\.html$", "/content/$1/v$2/i$3/$4.html",
                       afm.ROLE_FULL_TEXT_HTML, flags=re.IGNORECASE)
    builder.add_aspect(r"/cgi-bin/download\?jid=([^&]+)&vol=([^&]+)&iss=([^&]+)&page=([^&]+)$",
                       "/cgi-bin/download?jid=$1&vol=$2&iss=$3&page=$4", afm.ROLE_FULL_TEXT_PDF, flags=re.IGNORECASE)
    return builder


def roles(af: ArticleFiles) -> dict[str, str | None]:
    return {role: af.get_role_url(role) for role in af.roles()}


def test_html_and_pdf_article_is_emitted_once_from_the_higher_aspect() -> None:
    au = site_au(htmls=[95, 98, 101], pdfs=[95, 101, 104])
    articles = list(site_a(au).get_sub_tree_article_iterator())
    assert urls(articles) == [SITE_PDF.format(104), SITE_HTML.format(101), SITE_HTML.format(95),
                              SITE_HTML.format(98)]
    pdf_only, both = articles[0], articles[1]
    assert roles(pdf_only) == {"FullTextPdfFile": SITE_PDF.format(104)}
    assert roles(both) == {"FullTextHtml": SITE_HTML.format(101), "FullTextPdfFile": SITE_PDF.format(101)}
    assert roles(articles[3]) == {"FullTextHtml": SITE_HTML.format(98)}


def test_full_text_from_roles_can_prefer_a_minor_aspect_and_may_become_none() -> None:
    au = site_au(htmls=[95], pdfs=[95, 104])
    builder = SubTreeArticleIteratorBuilder(au, Spec())
    builder.add_aspect(r"/cgi-bin/download\?jid=([^&]+)&vol=([^&]+)&iss=([^&]+)&page=([^&]+)$",
                       "/cgi-bin/download?jid=$1&vol=$2&iss=$3&page=$4", afm.ROLE_FULL_TEXT_PDF)
    builder.add_aspect(replacements="/content/$1/v$2/i$3/$4.html", roles=afm.ROLE_FULL_TEXT_HTML)
    builder.set_full_text_from_roles(afm.ROLE_FULL_TEXT_HTML, afm.ROLE_FULL_TEXT_PDF)
    articles = list(builder.get_sub_tree_article_iterator())
    assert urls(articles) == [SITE_PDF.format(104), SITE_HTML.format(95)]  # URL order: "page=104" < "page=95"
    assert roles(articles[1]) == {"FullTextPdfFile": SITE_PDF.format(95), "FullTextHtml": SITE_HTML.format(95)}
    builder.set_full_text_from_roles(afm.ROLE_FULL_TEXT_EPUB)
    assert urls(builder.get_sub_tree_article_iterator()) == [None, None]


def test_minor_aspects_fill_roles_without_overwriting_and_roles_from_other_roles_overwrite() -> None:
    au = site_au(htmls=[95, 98], pdfs=[], abstracts=[95])
    builder = site_a(au)
    builder.add_aspect(replacements="/content/$1/v$2/i$3/$4-abstract.html",
                       roles=[afm.ROLE_ABSTRACT, afm.ROLE_ARTICLE_METADATA])
    builder.add_aspect(replacements="/content/$1/v$2/i$3/$4.html",
                       roles=[afm.ROLE_FULL_TEXT_HTML, afm.ROLE_ARTICLE_METADATA])
    first, second = builder.get_sub_tree_article_iterator()
    assert roles(first) == {"FullTextHtml": SITE_HTML.format(95), "Abstract": SITE_ABSTRACT.format(95),
                            "ArticleMetadata": SITE_ABSTRACT.format(95)}
    assert roles(second) == {"FullTextHtml": SITE_HTML.format(98), "ArticleMetadata": SITE_HTML.format(98)}
    builder.set_role_from_other_roles(afm.ROLE_ARTICLE_METADATA, afm.ROLE_FULL_TEXT_HTML, afm.ROLE_ABSTRACT)
    first, second = builder.get_sub_tree_article_iterator()
    assert first.get_role_url(afm.ROLE_ARTICLE_METADATA) == SITE_HTML.format(95)
    assert second.get_role_url(afm.ROLE_ARTICLE_METADATA) == SITE_HTML.format(98)


def test_article_target_skips_secondary_roles_but_not_the_full_text_order() -> None:
    au = site_au(htmls=[95], pdfs=[95, 104], abstracts=[95])
    builder = site_a(au, MetadataTarget.article())
    builder.add_aspect(replacements="/content/$1/v$2/i$3/$4-abstract.html", roles=afm.ROLE_ABSTRACT)
    builder.set_role_from_other_roles(afm.ROLE_ARTICLE_METADATA, afm.ROLE_ABSTRACT)
    builder.set_full_text_from_roles(afm.ROLE_FULL_TEXT_PDF, afm.ROLE_FULL_TEXT_HTML)
    articles = list(builder.get_sub_tree_article_iterator())
    assert urls(articles) == [SITE_PDF.format(104), SITE_HTML.format(95)]
    assert roles(articles[1]) == {"FullTextHtml": SITE_HTML.format(95)}
    any_target = site_a(au, MetadataTarget.any())
    any_target.add_aspect(replacements="/content/$1/v$2/i$3/$4-abstract.html", roles=afm.ROLE_ABSTRACT)
    any_target.set_role_from_other_roles(afm.ROLE_ARTICLE_METADATA, afm.ROLE_ABSTRACT)
    (_, html) = any_target.get_sub_tree_article_iterator()
    assert roles(html) == {"FullTextHtml": SITE_HTML.format(95), "FullTextPdfFile": SITE_PDF.format(95),
                           "Abstract": SITE_ABSTRACT.format(95), "ArticleMetadata": SITE_ABSTRACT.format(95)}


def test_full_text_is_chosen_after_roles_from_other_roles() -> None:
    """LOCKSS' SubTreeArticleIteratorBuilder fills roles from other roles before it chooses the full text, so an
    abstracts-only article (only its DOI landing page exists) gets the landing page as full text (Atypon relies on
    that)."""
    au = make_au({"https://x/doi/abs/10.1/a": HTML, "https://x/doi/abs/10.1/b": HTML,
                  "https://x/doi/full/10.1/b": HTML})
    builder = SubTreeArticleIteratorBuilder(au)
    builder.add_aspect(r"/doi/full/(.+)$", "/doi/full/$1", afm.ROLE_FULL_TEXT_HTML)
    builder.add_aspect(r"/doi/abs/(.+)$", "/doi/abs/$1", afm.ROLE_ABSTRACT)
    builder.set_role_from_other_roles(afm.ROLE_FULL_TEXT_HTML_LANDING, afm.ROLE_ABSTRACT)
    builder.set_full_text_from_roles(afm.ROLE_FULL_TEXT_HTML, afm.ROLE_FULL_TEXT_PDF, afm.ROLE_FULL_TEXT_HTML_LANDING)
    abstract_only, full = builder.get_sub_tree_article_iterator()
    assert abstract_only.full_text_url == "https://x/doi/abs/10.1/a"
    assert roles(abstract_only) == {"Abstract": "https://x/doi/abs/10.1/a",
                                    "FullTextHtmlLanding": "https://x/doi/abs/10.1/a"}
    assert full.full_text_url == "https://x/doi/full/10.1/b"


def test_the_first_major_aspect_that_matches_is_selected(caplog: pytest.LogCaptureFixture) -> None:
    au = make_au({"https://x/a/1": HTML, "https://x/b/2": HTML, "https://x/other": HTML})
    builder = SubTreeArticleIteratorBuilder(au)
    builder.add_aspect([r"/a/(\d+)$", r"/b/(\d+)$"], "/a/$1", afm.ROLE_FULL_TEXT_HTML)
    builder.add_aspect(r"/(\d+)$", "/z/$1", afm.ROLE_ABSTRACT)
    articles = list(builder.get_sub_tree_article_iterator())
    assert [roles(af) for af in articles] == [{"FullTextHtml": "https://x/a/1"}, {"FullTextHtml": "https://x/b/2"}]
    assert "https://x/other in ArchivalUnit" in caplog.text and "did not match any expected pattern" in caplog.text


def test_aspect_mime_types_keep_renditions_apart() -> None:
    au = make_au({"https://x/article/7": HTML, "https://x/article/7/file": PDF, "https://x/article/8/file": PDF})
    builder = SubTreeArticleIteratorBuilder(au)
    builder.add_aspect(r"/article/(\d+)(?:/file)?$", "/article/$1", afm.ROLE_FULL_TEXT_HTML, mime_types=HTML)
    builder.add_aspect(r"/article/(\d+)/file$", "/article/$1/file", afm.ROLE_FULL_TEXT_PDF, mime_types=[PDF])
    articles = list(builder.get_sub_tree_article_iterator())
    assert [roles(af) for af in articles] == [
        {"FullTextHtml": "https://x/article/7", "FullTextPdfFile": "https://x/article/7/file"},
        {"FullTextPdfFile": "https://x/article/8/file"},
    ]


def test_builder_errors() -> None:
    builder = SubTreeArticleIteratorBuilder()
    with pytest.raises(RuntimeError, match="until the AU is set"):
        builder.get_sub_tree_article_iterator()
    with pytest.raises(ValueError, match="patterns \\(major\\) or replacement strings \\(minor\\)"):
        builder.add_aspect(roles="Abstract")
    with pytest.raises(ValueError, match="at least one role"):
        builder.add_aspect("a", "$0")
    with pytest.raises(ValueError, match="Illegal group reference"):
        builder.add_aspect("a", "$", "Abstract")
    with pytest.raises(ValueError, match="at least one role"):
        builder.set_full_text_from_roles()
    with pytest.raises(ValueError, match="at least one other role"):
        builder.set_role_from_other_roles("ArticleMetadata")
    assert builder.set_archival_unit(make_au({})).au is not None
