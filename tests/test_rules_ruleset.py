"""A rule set: files merged in order (later rules win), checked across sections, and looked up by URL or page."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from pubfetch.engine.assembly import builtin_rules
from pubfetch.rules.keys import RuleError
from pubfetch.rules.ruleset import ScrapingRules

JOURNALS = """\
'a\\.org/': alpha
'a\\.org/+special/': special
---
alpha:
  title: h1
special:
  title: h2
platform:
  title: '.t'
  recognise: 'meta[name=generator][content=Plat]'
---
- 'a\\.org/+js/'
---
- 'a\\.org/+heavy/'
"""


def ruleset() -> ScrapingRules:
    rules = ScrapingRules()
    rules.add_journals(JOURNALS, "j.yaml")
    return rules


def test_the_last_matching_regex_names_the_site() -> None:
    rules = ruleset()
    assert rules.site("https://a.org/x") == "alpha"
    assert rules.site("https://a.org/special/1") == "special"
    assert rules.journal_rule("https://a.org/special/1").site == "special"
    assert rules.site("https://b.org/special/") is None
    assert rules.journal_regexes == (("a\\.org/", "alpha"), ("a\\.org/+special/", "special"))


def test_a_page_on_an_unknown_host_gets_the_rule_of_the_platform_it_shows() -> None:
    rules = ruleset()
    plat = BeautifulSoup('<html><head><meta name="generator" content="Plat"></head></html>', "lxml")
    other = BeautifulSoup("<html><head></head></html>", "lxml")
    assert rules.page_rule("https://c.org/1", plat).site == "platform"
    assert rules.page_rule("https://c.org/1", other) is None
    assert rules.page_rule("https://a.org/1", plat).site == "alpha"  # the URL wins over the fingerprint


def test_javascript_and_restart_sections_and_site_lookup() -> None:
    rules = ruleset()
    assert rules.javascript("https://a.org/js/1") and not rules.javascript("https://a.org/1")
    assert rules.restart("https://a.org/heavy/1") and not rules.restart("https://a.org/js/1")
    assert not rules.javascript("") and not rules.restart("")
    assert rules.sites["special"].selector("title").text == "h2"
    assert "nowhere" not in rules.sites


def test_a_later_file_overrides_a_site_and_adds_regexes() -> None:
    rules = ruleset()
    rules.add_journals("'b\\.org/': alpha\n---\nalpha:\n  title: '.new'\n", "user.yaml")
    assert rules.site("https://b.org/1") == "alpha"
    assert rules.journal_rule("https://a.org/1").selector("title").text == ".new"
    assert rules.sites["alpha"].file == "user.yaml"


def test_a_file_that_leaves_an_earlier_site_unnamed_is_refused_and_changes_nothing() -> None:
    rules = ruleset()
    with pytest.raises(RuleError, match="not defined in the site section") as info:
        rules.add_journals("'b\\.org/': beta\n", "user.yaml")
    assert (info.value.file, info.value.line) == ("user.yaml", 1)
    assert rules.site("https://b.org/1") is None


def test_webpage_rules_last_match_and_their_javascript_switch(tmp_path: Path) -> None:
    path = tmp_path / "web.yaml"
    path.write_text("'t\\.org/':\n  content: main\n't\\.org/+docs/':\n  javascript: true\n", encoding="utf-8")
    rules = ScrapingRules()
    rules.add_webpages_file(path)
    assert rules.webpage_rule("https://t.org/docs/1").javascript is True
    assert rules.webpage_javascript("https://t.org/docs/1") is True
    assert rules.webpage_javascript("https://t.org/1") is None  # the rule does not say
    assert rules.webpage_javascript("https://u.org/") is None  # no rule
    assert rules.webpage_rule("") is None
    assert [r.file for r in rules.webpage_rules] == [str(path)] * 2


def test_a_webpages_file_has_one_section() -> None:
    with pytest.raises(RuleError, match="a webpages file has only one") as info:
        ScrapingRules().add_webpages("'a\\.org/':\n  title: h1\n---\n'b\\.org/':\n  title: h1\n", "w.yaml")
    assert info.value.line == 4


def test_user_files_are_read_after_the_built_in_ones(tmp_path: Path) -> None:
    path = tmp_path / "j.yaml"
    path.write_text("'peerj\\.com/': mine\n---\nmine:\n  title: '.mine'\n", encoding="utf-8")
    assert builtin_rules().site("https://peerj.com/articles/1") == "peerj"
    assert ScrapingRules.load(path).site("https://peerj.com/articles/1") == "mine"
    assert builtin_rules() is builtin_rules()


def test_a_rule_file_is_parsed_once_per_process_and_again_when_its_text_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command line run with a user's rule file, and every page worker, builds its rules from the built-in
    texts and the user's: each text is parsed once, and a file edited in place (same name, same size) anew."""
    from pubfetch.rules import ruleset as module

    parsed: list[str] = []
    real = module.yaml_documents

    def counted(text: str, file: str) -> object:
        parsed.append(file)
        return real(text, file)

    monkeypatch.setattr(module, "yaml_documents", counted)
    module._journals_layer.cache_clear()
    module._webpages_layer.cache_clear()
    user = tmp_path / "journals.yaml"
    user.write_text(JOURNALS, encoding="utf-8")
    first = ScrapingRules.load(user)
    again = ScrapingRules.load(user)
    rebuilt = ScrapingRules.from_sources(first.sources)
    assert parsed == ["journals.yaml", "webpages.yaml", str(user)]
    for rules in (first, again, rebuilt):
        assert rules.journal_rule("https://a.org/special/1").site == "special"
        assert rules.journal_rule("https://www.frontiersin.org/articles/10.3389/fmicb.2019.00001/full") is not None
    user.write_text(JOURNALS.replace("title: h2", "title: h3"), encoding="utf-8")  # the same size, the same second
    edited = ScrapingRules.load(user)
    assert parsed[3:] == [str(user)]
    assert edited.journal_rule("https://a.org/special/1").text("title") == "h3"
    assert first.journal_rule("https://a.org/special/1").text("title") == "h2"  # what was built stays as it was


def test_a_file_that_fails_is_refused_each_time_and_leaves_the_rules_as_they_were() -> None:
    rules = ruleset()
    broken = "'b\\.org/': beta\n---\nbeta:\n  title: 'h1:matches(x)'\n"
    for _ in range(2):
        with pytest.raises(RuleError, match="matches"):
            rules.add_journals(broken, "b.yaml")
    assert rules.site("https://b.org/x") is None and rules.site("https://a.org/x") == "alpha"
