"""Scraping-rule files: loading, validation messages, URL matching and the built-in files themselves."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.engine.assembly import builtin_rules
from pubfetch.rules import (
    JOURNAL_KEYS,
    RuleError,
    ScrapingRules,
    Selector,
)
from pubfetch.rules import ruleset as rules_mod

MINIMAL_JOURNALS = """\
'example\\.org/+articles/': example
---
example:
  title: h1
---
- 'example\\.org/+slow/'
---
- 'example\\.org/+heavy/'
"""


def journals(text: str, name: str = "test.yaml") -> ScrapingRules:
    rules = ScrapingRules()
    rules.add_journals(text, name)
    return rules


def webpages(text: str, name: str = "web.yaml") -> ScrapingRules:
    rules = ScrapingRules()
    rules.add_webpages(text, name)
    return rules


def error_of(callable_, *args) -> RuleError:
    with pytest.raises(RuleError) as info:
        callable_(*args)
    return info.value


# ------------------------------------------------------------------------------------------------ built-in files


def test_builtin_rules_load_and_every_selector_compiles() -> None:
    rules = ScrapingRules.load()
    platforms = {"highwire", "atypon", "silverchair", "sciencedirect", "wiley", "springer_nature", "oup", "cambridge",
                 "ojs", "janeway", "scholastica", "pkp_preprint", "bepress", "figshare", "invenio", "arxiv",
                 "researchsquare", "biorxiv", "eprints", "dspace"}
    assert platforms <= set(rules.sites)
    selectors = []
    for site in rules.sites.values():
        assert set(site.selectors) <= set(JOURNAL_KEYS)
        assert site.file == "journals.yaml"
        selectors.extend(site.selectors.values())
        selectors.extend(s for s in (site.recognise, site.wait_until) if isinstance(s, Selector))
    assert len(rules.webpage_rules) >= 14
    for rule in rules.webpage_rules:
        assert rule.file == "webpages.yaml"
        assert rule.title is not None or rule.content is not None
        selectors.extend(s for s in (rule.title, rule.content, rule.license, rule.language) if s is not None)
    # the built-in selectors are compiled on first use: compile them all here
    assert all(selector.empty or selector.compiled is not None for selector in selectors)
    assert len(selectors) > 100


def test_builtin_rules_are_loaded_once() -> None:
    assert builtin_rules() is builtin_rules()


@pytest.mark.parametrize(("url", "site"), [
    ("https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0213978", "plos"),
    ("https://peerj.com/articles/4375", "peerj"),
    ("https://elifesciences.org/articles/44753", "elife"),
    ("https://www.nature.com/articles/d41586-020-02610-z", "nature"),
    ("https://firstmonday.org/ojs/index.php/fm/article/view/10274", "ojs"),
    ("https://journals.example.edu/index.php/jbi/article/view/55", "ojs"),
    ("https://journals.example.edu/index.php/jbi/article/view/55/101", "ojs_galley"),
    ("https://firstmonday.org/ojs/index.php/fm/article/view/10274/9729", "firstmonday_galley"),
    ("http://www.dlib.org/dlib/may17/vanhyning/05vanhyning.html", "dlib"),
    ("https://academic.oup.com/nar/article/50/D1/D1/6446529", "oup"),
    ("https://academic.oup.com/bioinformatics/article/38/1/1/6332000", "oup"),
    ("https://bmcbioinformatics.biomedcentral.com/articles/10.1186/s12859-020-01234-5", "springer_nature"),
    ("https://genomebiology.biomedcentral.com/articles/10.1186/s13059-019-1234-5", "springer_nature"),
    ("https://link.springer.com/article/10.1007/s00285-020-01234-5", "springer_nature"),
    ("https://onlinelibrary.wiley.com/doi/full/10.1002/pro.4172", "wiley"),
    ("https://onlinelibrary.wiley.com/doi/10.1002/pro.4172", "wiley"),
    ("https://www.sciencedirect.com/science/article/pii/S1532046421001064", "sciencedirect"),
    ("https://www.frontiersin.org/articles/10.3389/fmicb.2020.570000/full", "frontiers"),
    ("https://www.frontiersin.org/journals/microbiology/articles/10.3389/fmicb.2020.570000/full", "frontiers"),
    ("https://www.mdpi.com/1422-0067/22/4/1234/htm", "mdpi"),
    ("https://www.biorxiv.org/content/10.1101/2021.03.01.433300v1.full", "biorxiv"),
    ("https://www.medrxiv.org/content/10.1101/2020.05.01.20087000v2", "biorxiv"),
    ("HTTPS://WWW.PEERJ.COM/ARTICLES/4375", "peerj"),
    ("http://www.genders.org/g58/g58_fairlie.html", "genders"),
    ("https://example.org/", None),
    ("", None),
])  # fmt: skip
def test_builtin_journal_sites(url: str, site: str | None) -> None:
    rules = builtin_rules()
    assert rules.site(url) == site
    rule = rules.journal_rule(url)
    assert (rule.site if rule else None) == site


def test_builtin_javascript_is_for_preprint_servers_only() -> None:
    rules = builtin_rules()
    assert rules.javascript("https://www.biorxiv.org/content/10.1101/2021.03.01.433300v1")
    assert rules.javascript("https://medrxiv.org/content/10.1101/2020.05.01.20087000v2")
    assert not rules.javascript("https://peerj.com/articles/4375")
    assert not rules.restart("https://www.biorxiv.org/content/10.1101/2021.03.01.433300v1")


@pytest.mark.parametrize(("url", "regex"), [
    ("https://github.com/samtools/samtools", r"github\.com/+[^/]+/+[^/]+/*$"),
    ("https://github.com/samtools/samtools/", r"github\.com/+[^/]+/+[^/]+/*$"),
    ("https://github.com/samtools/samtools/blob/develop/README.md", r"github\.com/+[^/]+/+[^/]+/+(blob|tree)/"),
    ("https://github.com/samtools/samtools/wiki", r"github\.com/+[^/]+/+[^/]+/+wiki(/|$)"),
    ("https://gitlab.com/ezlab/busco", r"gitlab\.com/+[^/]+(/+[^/-][^/]*)+/*$"),
    ("https://gitlab.com/group/subgroup/project", r"gitlab\.com/+[^/]+(/+[^/-][^/]*)+/*$"),
    ("https://gitlab.com/ezlab/busco/-/issues", None),
    ("https://bitbucket.org/genomicepidemiology/resfinder", r"bitbucket\.org/+[^/]+/+[^/]+/*$"),
    ("https://sourceforge.net/projects/bio-bwa/", r"sourceforge\.net/+projects/+[^/]+/*$"),
    ("https://snakemake.readthedocs.io/en/stable/", r"[a-z0-9-]+\.(readthedocs\.io|rtfd\.io)/"),
    ("https://pypi.org/project/biopython/", r"pypi\.org/+project/+[^/]+"),
    ("https://cran.r-project.org/package=seqinr",
     r"(cran|cloud)\.r-project\.org/+(web/+packages/+[^/]+/*(index\.html)?|package=[^/&?#]+/*)$"),
    ("https://cran.r-project.org/web/packages/seqinr/index.html",
     r"(cran|cloud)\.r-project\.org/+(web/+packages/+[^/]+/*(index\.html)?|package=[^/&?#]+/*)$"),
    ("https://bioconductor.org/packages/release/bioc/html/DESeq2.html",
     r"bioconductor\.org/+packages/+(.+/+)?html/+[^/]+\.html"),
    ("https://anaconda.org/bioconda/samtools", r"anaconda\.org/+bioconda/+[^/]+/*$"),
    ("https://bio.tools/bwa", r"bio\.tools/+(tool/+)?[^/?#]+/*$"),
    ("https://toolshed.g2.bx.psu.edu/view/devteam/bwa/",
     r"(test)?toolshed\.g2\.bx\.psu\.edu/+(view|repository)/"),
    ("https://zenodo.org/record/1234567", r"zenodo\.org/+records?/+[0-9]+"),
    ("https://example.org/tool", None),
])  # fmt: skip
def test_builtin_webpage_rules(url: str, regex: str | None) -> None:
    rule = builtin_rules().webpage_rule(url)
    assert (rule.regex if rule else None) == regex


def test_builtin_files_load_from_the_repository_directory() -> None:
    """A checkout reads the rule files beside its code (a second worktree of an editable install included); an
    installed package reads its package data."""
    assert (rules_mod.BUILTIN_DIR / "journals.yaml").is_file()
    assert (rules_mod.BUILTIN_DIR / "webpages.yaml").is_file()
    assert rules_mod._builtin_text("journals.yaml") == (rules_mod.BUILTIN_DIR / "journals.yaml").read_text("utf-8")


def test_missing_builtin_file_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(rules_mod, "BUILTIN_DIR", tmp_path)
    monkeypatch.setattr(rules_mod, "BUILTIN_PACKAGE", "pubfetch.no_such_package")
    err = error_of(rules_mod._builtin_text, "journals.yaml")
    assert err.file == "journals.yaml"
    assert "built-in rule file not found" in str(err)


# --------------------------------------------------------------------------------------------------- matching


def test_last_matching_regex_wins_and_javascript_lists() -> None:
    text = """\
'example\\.org/': general
'example\\.org/+articles/': articles
---
general:
  title: h1
articles:
  title: h1.article
---
- 'example\\.org/+slow/'
---
- 'example\\.org/+heavy/'
"""
    rules = journals(text)
    assert rules.site("https://example.org/articles/1") == "articles"
    assert rules.site("https://example.org/about") == "general"
    assert rules.journal_rule("https://example.org/articles/1").selector("title").css == "h1.article"
    assert rules.javascript("https://example.org/slow/1")
    assert not rules.javascript("https://example.org/articles/1")
    assert rules.restart("https://example.org/heavy/1")
    assert rules.journal_regexes == ((r"example\.org/", "general"), (r"example\.org/+articles/", "articles"))


def test_user_files_override_builtin_rules(tmp_path: Path) -> None:
    user_journals = tmp_path / "my-journals.yaml"
    user_journals.write_text("""\
'peerj\\.com/+articles/+[0-9]+': mypeerj
---
mypeerj:
  title: h1.my-title
""", encoding="utf-8")
    user_webpages = tmp_path / "my-webpages.yaml"
    user_webpages.write_text("""\
'github\\.com/+[^/]+/+[^/]+/*$':
  title: ''
  javascript: true
""", encoding="utf-8")
    rules = ScrapingRules.load(user_journals, str(user_webpages))
    assert rules.site("https://peerj.com/articles/4375") == "mypeerj"
    assert rules.journal_rule("https://peerj.com/articles/4375").file == str(user_journals)
    assert rules.site("https://elifesciences.org/articles/44753") == "elife"  # untouched built-ins remain
    github = rules.webpage_rule("https://github.com/a/b")
    assert github.file == str(user_webpages)
    assert github.title is not None and github.title.empty
    assert github.content is None
    assert rules.webpage_javascript("https://github.com/a/b") is True


def test_user_file_may_redefine_a_builtin_site_without_a_regex() -> None:
    rules = ScrapingRules.load()
    rules.add_journals("---\n---\nplos:\n  title: h1.other\n", "override.yaml")
    rule = rules.journal_rule("https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0213978")
    assert rule.file == "override.yaml"
    assert rule.selector("doi") is None  # the whole site is replaced, as in PubFetcher


def test_webpage_javascript_comes_from_the_start_url_rule() -> None:
    rules = webpages("""\
'short\\.example/':
  javascript: false
'app\\.example/':
  title: h1
  javascript: 'TRUE'
'plain\\.example/':
  title: h1
""")
    assert rules.webpage_javascript("https://short.example/x") is False
    assert rules.webpage_javascript("https://app.example/x") is True
    assert rules.webpage_javascript("https://plain.example/x") is None
    assert rules.webpage_javascript("https://elsewhere.example/x") is None
    assert rules.webpage_rule("https://short.example/x").title is None


def test_wait_until_is_css_text_for_the_browser() -> None:
    rules = journals("'a\\.org/': a\n---\na:\n  title: h1\n  wait_until: ' #content  '\n")
    assert rules.journal_rule("https://a.org/").wait_until == "#content"
    web = webpages("'a\\.org/':\n  javascript: true\n  wait_until: 'main article'\n")
    assert web.webpage_rule("https://a.org/").wait_until == "main article"
    assert builtin_rules().webpage_rule("https://bio.tools/bwa").wait_until == "[ng-include*=toolPageSummary] > h2"
    err = error_of(webpages, "'a\\.org/':\n  wait_until: 'main >'\n")
    assert err.key == "wait_until"


def test_empty_url_matches_nothing() -> None:
    rules = builtin_rules()
    assert rules.site("") is None
    assert rules.webpage_rule("") is None
    assert not rules.javascript("")


def test_journal_rule_selector_rejects_unknown_keys() -> None:
    rule = journals(MINIMAL_JOURNALS).journal_rule("https://example.org/articles/1")
    with pytest.raises(KeyError, match="not a journal selector key"):
        rule.selector("fulltext_src")
    assert rule.selector("abstract") is None
    assert rule.wait_until is None


def test_fewer_sections_are_allowed_in_user_files() -> None:
    rules = journals("'example\\.org/': ex\n---\nex:\n  doi: .doi\n")
    assert rules.site("https://example.org/1") == "ex"
    assert not rules.javascript("https://example.org/1")
    empty = journals("# nothing yet\n")
    assert empty.sites == {}


# ------------------------------------------------------------------------------------------------- validation


def test_yaml_syntax_error_names_file_and_line() -> None:
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  title: [unclosed\n", "broken.yaml")
    assert err.file == "broken.yaml"
    assert err.line == 5
    assert str(err).startswith("scraping rules broken.yaml:5: YAML syntax error")


def test_too_many_sections() -> None:
    err = error_of(journals, MINIMAL_JOURNALS + "---\n- extra\n")
    assert "at most 4 are allowed" in str(err)
    assert err.line == 10
    err = error_of(webpages, "'a\\.org/':\n  title: h1\n---\n'b\\.org/':\n  title: h1\n")
    assert "has only one" in str(err)


def test_regex_pointing_to_undefined_site() -> None:
    err = error_of(journals, "'a\\.org/': a\n'b\\.org/': missing\n---\na:\n  title: h1\n")
    assert (err.rule, err.line) == (r"b\.org/", 2)
    assert "the site this regex names is not defined" in str(err) and "missing" not in str(err)


def test_site_without_regex() -> None:
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  title: h1\nlonely:\n  title: h1\n")
    assert (err.rule, err.line) == ("lonely", 5)
    assert "no regex in the regex section maps to this site" in str(err)


def test_unknown_journal_key() -> None:
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  title: h1\n  abstrakt: p\n", "j.yaml")
    assert (err.file, err.rule, err.key, err.line) == ("j.yaml", "a", "abstrakt", 5)
    # the file and line find the key; the message does not quote what the file holds (it may not be a rule file)
    assert str(err).startswith("scraping rules j.yaml:5: unknown key")


def test_src_without_dst() -> None:
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  pdf_src: '/abs/'\n")
    assert (err.key, err.line) == ("pdf_src", 4)
    assert "'pdf_src' needs 'pdf_dst' too" in str(err)
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  fulltext_dst: '/full/'\n")
    assert "'fulltext_dst' needs 'fulltext_src' too" in str(err)


@pytest.mark.parametrize("value", ["''", "'   '", "", "[h1, h2]", "12"])
def test_journal_values_must_be_non_empty_strings(value: str) -> None:
    err = error_of(journals, f"'a\\.org/': a\n---\na:\n  title: {value}\n")
    assert (err.rule, err.key, err.line) == ("a", "title", 4)
    assert "non-empty string" in str(err)


def test_empty_site() -> None:
    err = error_of(journals, "'a\\.org/': a\n---\na:\n")
    assert err.rule == "a"
    assert "site is empty" in str(err)


def test_bad_selector_is_reported_at_load_time() -> None:
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  title: h1\n  abstract: 'div[class='\n")
    assert (err.key, err.line) == ("abstract", 5)
    assert "invalid CSS selector" in str(err) and "div[class=" not in str(err)  # named by line and key, not quoted


def test_unsupported_jsoup_pseudo_class_is_reported() -> None:
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  title: 'h1:matches(^Title)'\n")
    assert err.key == "title"
    assert ":matches()" in str(err)


def test_bad_regex_is_reported() -> None:
    err = error_of(journals, "'a\\.org/(': a\n---\na:\n  title: h1\n")
    assert (err.rule, err.line) == (r"a\.org/(", 1)
    assert "not a valid regular expression" in str(err)
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  pdf_src: '('\n  pdf_dst: x\n")
    assert (err.key, err.line) == ("pdf_src", 4)


def test_site_section_given_first_gets_a_hint() -> None:
    err = error_of(journals, "plos:\n  title: h1\n")
    assert "the site name of a regex must be a string, not a mapping" in str(err)
    assert "first section maps regexes to site names" in str(err)


def test_non_string_regex_and_section_shapes() -> None:
    err = error_of(journals, "123: a\n---\na:\n  title: h1\n")
    assert "a regex must be a string" in str(err)
    err = error_of(journals, "- not a mapping\n")
    assert "the regex section (section 1) must be a mapping" in str(err)
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  title: h1\n---\njavascript: yes\n")
    assert "javascript section must be a list" in str(err)
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  title: h1\n---\n- ''\n")
    assert "a javascript regex cannot be empty" in str(err)


def test_replacement_group_errors() -> None:
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  pdf_src: '/abs/'\n  pdf_dst: '/pdf/$1'\n")
    assert "refers to group 1, but the regex has 0" in str(err)
    err = error_of(journals, "'a\\.org/': a\n---\na:\n  pdf_src: '/abs/'\n  pdf_dst: '/pdf/$x'\n")
    assert "illegal group reference" in str(err)


@pytest.mark.parametrize(("text", "key", "message"), [
    ("'a\\.org/':\n  tilte: h1\n", "tilte", "unknown key"),
    ("'a\\.org/':\n  javascript: maybe\n", "javascript", "true or false"),
    ("'a\\.org/':\n  title:\n", "title", "write '' to force an empty value"),
    ("'a\\.org/':\n  license: ''\n", "license", "cannot be empty"),
    ("'a\\.org/':\n  content: [p]\n", "content", "selector string"),
    ("'a\\.org/':\n  title: 'h1:eq(x)'\n", "title", "non-negative whole number"),
])  # fmt: skip
def test_webpage_rule_errors(text: str, key: str, message: str) -> None:
    err = error_of(webpages, text, "w.yaml")
    assert (err.file, err.rule, err.key, err.line) == ("w.yaml", r"a\.org/", key, 2)
    assert message in str(err)


def test_empty_webpage_rule() -> None:
    err = error_of(webpages, "'a\\.org/':\n")
    assert "rule is empty" in str(err)


def test_failed_add_leaves_rules_unchanged() -> None:
    rules = journals(MINIMAL_JOURNALS)
    with pytest.raises(RuleError):
        rules.add_journals("'b\\.org/': b\n---\nb:\n  title: 'h1['\n", "bad.yaml")
    assert rules.site("https://b.org/x") is None
    assert set(rules.sites) == {"example"}


def test_unreadable_user_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    err = error_of(ScrapingRules.load, missing)
    assert err.file == str(missing)
    assert "cannot read the file" in str(err)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"'caf\xe9\\.org/': a\n")
    err = error_of(ScrapingRules.load, None, latin)
    assert "not UTF-8" in str(err)


def test_empty_user_file_names_are_ignored() -> None:
    rules = ScrapingRules.load("", "")
    assert rules.site("https://peerj.com/articles/4375") == "peerj"


# ------------------------------------------------------------------------------------- recognise and test entries


def test_test_entries_and_fingerprint_are_read() -> None:
    rules = journals("'example\\.org/': ex\n---\nex:\n  title: h1\n  recognise: 'meta[name=generator][content^=Ex]'\n"
                     "  tests:\n    - url: 'https://example.org/a'\n      title: 'A'\n      abstract: 120\n"
                     "      pdf: true\n    - url: 'https://example.org/b'\n      untested: true\n")
    site = rules.sites["ex"]
    assert [(t.url, dict(t.expect), t.untested, t.line) for t in site.tests] == [
        ("https://example.org/a", {"title": "A", "abstract": 120, "pdf": True}, False, 7),
        ("https://example.org/b", {}, True, 11),
    ]
    assert site.recognise.text == "meta[name=generator][content^=Ex]"


def test_a_platform_needs_no_regex_when_it_has_a_fingerprint() -> None:
    from pubfetch.extract.clean import parse_html

    rules = journals("{}\n---\nplatform:\n  title: h1\n  recognise: 'meta[name=generator][content^=Ex]'\n"
                     "  tests:\n    - url: 'https://x.org/1'\n      untested: true\n")
    assert rules.journal_rule("https://x.org/1") is None
    page = parse_html('<html><head><meta name="generator" content="Ex 2.0"></head><body><h1>T</h1></body></html>')
    assert rules.page_rule("https://x.org/1", page).site == "platform"
    assert rules.page_rule("https://x.org/1", parse_html("<html><body><h1>T</h1></body></html>")) is None


@pytest.mark.parametrize(("entry", "message"), [
    ("    - title: 'A'\n", "a test entry needs a url"),
    ("    - url: 'https://example.org/a'\n      words: 3\n", "unknown test expectation (known: url, untested,"),
    ("    - url: 'https://example.org/a'\n      abstract: 'long'\n", "test expectation 'abstract' must be int"),
    ("    - url: 'https://example.org/a'\n      title: 12\n", "test expectation 'title' must be str"),
    ("    - url: 'https://example.org/a'\n      abstract: true\n", "test expectation 'abstract' must be int"),
    ("    - url: 'https://example.org/a'\n      untested: 'yes'\n", "'untested' must be true or false"),
])
def test_bad_test_entries_name_file_line_rule_and_key(entry: str, message: str) -> None:
    error = error_of(journals, f"'example\\.org/': ex\n---\nex:\n  title: h1\n  tests:\n{entry}")
    assert (error.file, error.rule, error.key) == ("test.yaml", "ex", "tests")
    assert error.line is not None and error.line >= 6
    assert message in str(error)


def test_tests_must_be_a_list_and_a_fingerprint_a_valid_selector() -> None:
    error = error_of(journals, "'example\\.org/': ex\n---\nex:\n  title: h1\n  tests: 'https://example.org/a'\n")
    assert "must be a list of test entries" in str(error)
    error = error_of(journals, "'example\\.org/': ex\n---\nex:\n  title: h1\n  recognise: 'meta[name='\n")
    assert (error.key, error.line) == ("recognise", 5)


def test_site_without_regex_or_fingerprint_is_still_an_error() -> None:
    error = error_of(journals, "{}\n---\nlonely:\n  title: h1\n")
    assert "no regex in the regex section maps to this site, and it has no 'recognise' selector" in str(error)
