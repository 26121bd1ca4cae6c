"""Rule URL regexes as PubFetcher reads them (scheme prefix, case-insensitive, leading flags) and the Java
replaceFirst of the ``*_src``/``*_dst`` rewrites."""

from __future__ import annotations

import re

import pytest

from pubfetch.rules.urls import UrlRewrite, compile_url_regex


def test_regex_prefix_is_added_unless_the_regex_is_anchored() -> None:
    pattern = compile_url_regex(r"example\.org/+a")
    assert pattern.search("https://www.EXAMPLE.org//a/1")
    assert pattern.search("http://example.org/a")
    assert not pattern.search("ftp://example.org/a")
    assert not pattern.search("https://evil.com/?u=https://example.org/a")  # anchored at the scheme
    anchored = compile_url_regex(r"^ftp://example\.org/")
    assert anchored.search("ftp://example.org/x")
    assert not anchored.search("FTP://example.org/x")  # no (?i) added to an anchored regex


def test_leading_inline_flags_are_moved_before_the_prefix() -> None:
    pattern = compile_url_regex(r"(?s)example\.org/.+end")
    assert pattern.search("https://example.org/a\nend")
    assert pattern.flags & re.IGNORECASE



@pytest.mark.parametrize(("src", "dst", "url", "expected"), [
    (r"(\.full(-text)?|\.abstract)?/*$", ".full.pdf", "https://www.biorxiv.org/content/10.1101/1v1",
     "https://www.biorxiv.org/content/10.1101/1v1.full.pdf"),
    (r"(\.full(-text)?|\.abstract)?/*$", ".full.pdf", "https://www.biorxiv.org/content/10.1101/1v1.full-text",
     "https://www.biorxiv.org/content/10.1101/1v1.full.pdf"),
    (r"(\.full(-text)?|\.abstract)?/*$", ".full-text", "https://www.biorxiv.org/content/10.1101/1v1.full-text", None),
    (r"/doi/+((abs|full|epdf)/+)?10\.", "/doi/pdfdirect/10.", "https://x.org/doi/abs/10.1002/a",
     "https://x.org/doi/pdfdirect/10.1002/a"),
    (r"/article/([0-9]+)/abstract", "/article/$1/pdf", "https://x.org/article/12/abstract", "https://x.org/article/12/pdf"),
    (r"/article/(?P<id>[0-9]+)", "/pdf/${id}\\$", "https://x.org/article/12", "https://x.org/pdf/12$"),
    (r"/(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)", "/$11$1", "https://x.org/abcdefghijk", "https://x.org/ka"),
    (r"/(a)", "/$12", "https://x.org/a", "https://x.org/a2"),
    (r"/nomatch/", "/x/", "https://x.org/a", None),
])  # fmt: skip
def test_url_rewrite_is_java_replace_first(src: str, dst: str, url: str, expected: str | None) -> None:
    assert UrlRewrite.compile(src, dst).apply(url) == expected


def test_url_rewrite_rejects_lone_backslash() -> None:
    with pytest.raises(ValueError, match="lone backslash"):
        UrlRewrite.compile("/a", "/b\\")
    with pytest.raises(ValueError, match="which the regex lacks"):
        UrlRewrite.compile("/a", "${name}")


def test_url_rewrite_rejects_an_invalid_regex_and_a_group_the_regex_lacks() -> None:
    with pytest.raises(ValueError, match="invalid regular expression"):
        UrlRewrite.compile("/a(", "/b")
    with pytest.raises(ValueError, match="refers to group 2, but the regex has 1"):
        UrlRewrite.compile("/(a)", "/$2")
    with pytest.raises(ValueError, match="illegal group reference"):
        UrlRewrite.compile("/a", "/$")


def test_url_rewrite_replaces_only_the_first_match() -> None:
    assert UrlRewrite.compile("/a", "/b").apply("https://x.org/a/a") == "https://x.org/b/a"


def test_url_rewrites_compare_by_their_source_and_replacement() -> None:
    assert UrlRewrite.compile("/(a)", "/$1") == UrlRewrite.compile("/(a)", "/$1")
    assert UrlRewrite.compile("/(a)", "/$1") != UrlRewrite.compile("/(a)", "/b")
