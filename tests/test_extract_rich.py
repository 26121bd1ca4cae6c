"""The rich parts (funding, updates, references, sections, licence) compared with the recorded XML and JSON itself:
each expectation is read from the document with plain lxml / json, never through pubfetch's parsers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from pubfetch.extract.europepmc import parse_search
from pubfetch.extract.jats import parse_jats
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import PartType, Publication, apply_record

XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
#: Europe PMC's commentCorrection types met in the corpus, as PubMed writes the same RefType
EPMC_TYPES = {"Retraction in": "RetractionIn", "Erratum for": "ErratumFor", "Comment in": "CommentIn",
              "Retraction of": "RetractionOf", "Erratum in": "ErratumIn"}


def _text(el: etree._Element | None) -> str:
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def _files(corpus_dir: Path, resource: str, pattern: str) -> list[Path]:
    files = sorted((corpus_dir / "files" / resource).glob(pattern))
    assert files, f"no {resource} files in the corpus"
    return files


def _own(el: etree._Element) -> bool:
    """Not inside a sub-article or response (those carry their own references)."""
    return not any(a.tag in ("sub-article", "response") for a in el.iterancestors())


def test_pubmed_updates_and_references_match_the_xml(corpus_dir: Path) -> None:
    seen = {"updates": 0, "references": 0, "other ids": 0}
    for path in _files(corpus_dir, "pubmed_efetch", "*.xml"):
        root = etree.parse(str(path)).getroot()
        records = {r.pmid: r for r in parse_pubmed_xml(path.read_bytes())}
        for article in root.iter("PubmedArticle"):
            record = records[_text(article.find("MedlineCitation/PMID"))]
            grant_ids = [_text(g) for g in article.iter("GrantID")]
            assert [g.grant_id for g in record.funding if g.grant_id] == grant_ids
            expected_updates = [(c.get("RefType"), _text(c.find("PMID")))
                                for c in article.iter("CommentsCorrections")]
            assert [(u.type, u.pmid) for u in record.updates] == expected_updates
            expected_refs = [next((_text(i) for i in ref.iter("ArticleId") if i.get("IdType") == "pubmed"), "")
                             for ref in article.find("PubmedData").iter("Reference")]
            assert [r.pmid for r in record.references] == expected_refs
            cited = [{i.get("IdType"): _text(i) for i in ref.iter("ArticleId")}
                     for ref in article.find("PubmedData").iter("Reference")]
            assert [(r.doi.lower(), r.pmcid) for r in record.references] == [
                (ids.get("doi", "").lower(), ids.get("pmc", "")) for ids in cited]  # DOIs are kept upper-case
            assert all(r.text for r in record.references)
            seen["other ids"] += sum(bool(ids.get("doi") or ids.get("pmc")) for ids in cited)
            seen["updates"] += len(expected_updates)
            seen["references"] += len([p for p in expected_refs if p])
    assert seen["updates"] > 0 and seen["references"] > 0, seen


def test_pubmed_grant_list_keeps_every_grant_id() -> None:
    """The corpus's PubMed records carry no GrantList, so this one is written here (a real record's shape)."""
    xml = b"""<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>123</PMID><Article><ArticleTitle>T</ArticleTitle>
    <GrantList CompleteYN="Y">
      <Grant><GrantID>R01 GM012345</GrantID><Acronym>GM</Acronym><Agency>NIGMS NIH HHS</Agency>
        <Country>United States</Country></Grant>
      <Grant><GrantID>R01 GM012345</GrantID><Agency>NIGMS NIH HHS</Agency><Country>United States</Country></Grant>
      <Grant><GrantID>WT 098051</GrantID><Agency>Wellcome Trust</Agency><Country>United Kingdom</Country></Grant>
      <Grant><Agency>Wellcome Trust</Agency><Country>United Kingdom</Country></Grant>
    </GrantList><PublicationTypeList><PublicationType>Retracted Publication</PublicationType></PublicationTypeList>
    </Article><CommentsCorrectionsList><CommentsCorrections RefType="RetractionIn"><RefSource>J X. 2020;1:2.
    doi: 10.1000/retract.1.</RefSource><PMID Version="1">456</PMID></CommentsCorrections></CommentsCorrectionsList>
    </MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">123</ArticleId></ArticleIdList>
    </PubmedData></PubmedArticle></PubmedArticleSet>"""
    record = parse_pubmed_xml(xml)[0]
    assert [(g.agency, g.grant_id, g.country) for g in record.funding][0] == \
        ("NIGMS NIH HHS", "R01 GM012345", "United States")
    assert [(u.type, u.pmid, u.doi) for u in record.updates] == [("RetractionIn", "456", "10.1000/RETRACT.1")]
    pub = Publication()
    apply_record(pub, record, PartType.pubmed_xml, "https://eutils/x", FetcherArgs())
    assert [g.grant_id for g in pub.funding.items] == ["R01 GM012345", "WT 098051"]  # deduplicated by grant ID
    assert pub.retracted and pub.funding.type is PartType.pubmed_xml


def _jats_articles(corpus_dir: Path) -> list[Path]:
    return _files(corpus_dir, "europepmc_fulltext", "*.xml") + _files(corpus_dir, "pmc_efetch", "*.xml")


def test_jats_references_sections_funding_and_licence_match_the_xml(corpus_dir: Path) -> None:
    totals = {"refs": 0, "ref dois": 0, "sections": 0, "awards": 0, "licences": 0}
    for path in _jats_articles(corpus_dir):
        root = etree.parse(str(path)).getroot()
        articles = [a for a in root.iter("article") if _own(a)]
        records = parse_jats(path.read_bytes())
        assert len(records) == len(articles)
        for article, record in zip(articles, records, strict=True):
            refs = [r for r in article.iter("ref") if _own(r)]
            assert len(record.references) == len(refs), path.name
            ref_pmids = [next((_text(p) for p in r.iter("pub-id") if p.get("pub-id-type") == "pmid"), "") for r in refs]
            assert [r.pmid for r in record.references] == ref_pmids, path.name
            ref_dois = [next((_text(p) for p in r.iter("pub-id") if p.get("pub-id-type") == "doi"), "") for r in refs]
            assert [r.doi.lower() for r in record.references] == [d.lower() for d in ref_dois], path.name
            body = article.find("body")
            titles = [_text(s.find("title")) for s in (body.findall("sec") if body is not None else [])]
            assert [s.title for s in record.sections if s.level == 1] == titles, path.name
            awards = [_text(a) for a in article.find("front").iter("award-id")]
            assert [g.grant_id for g in record.funding if g.grant_id] == awards, path.name
            licences = list(article.find("front").iter("license"))
            assert bool(record.license) == bool(licences), path.name
            if licences:  # the ali:license_ref URL, else the licence's xlink:href
                licence_refs = [_text(e) for e in licences[0].iter()
                                if isinstance(e.tag, str) and etree.QName(e).localname == "license_ref"]
                assert record.license == (licence_refs or [licences[0].get(XLINK_HREF)])[0], path.name
            totals["refs"] += len(refs)
            totals["ref dois"] += len([d for d in ref_dois if d])
            totals["sections"] += len(titles)
            totals["awards"] += len(awards)
            totals["licences"] += len(licences)
    assert all(totals.values()), totals


def test_jats_subsections_nest_under_their_section(corpus_dir: Path) -> None:
    path = corpus_dir / "files" / "pmc_efetch" / "PMC3299399.xml"
    article = etree.parse(str(path)).getroot().find(".//article")
    record = parse_jats(path.read_bytes())[0]
    expected = []
    stack = [(s, 1) for s in reversed(article.find("body").findall("sec"))]
    while stack:
        sec, level = stack.pop()
        expected.append((level, _text(sec.find("title"))))
        stack += [(s, level + 1) for s in reversed(sec.findall("sec"))]
    assert [(s.level, s.title) for s in record.sections] == expected
    assert any(level > 1 for level, _ in expected)
    first_paragraph = _text(article.find("body").find("sec").find("p"))
    assert record.sections[0].text.startswith(first_paragraph[:60])


def _search_results(corpus_dir: Path) -> list[tuple[dict, Path]]:
    out = []
    for path in _files(corpus_dir, "europepmc_search", "*.json"):
        results = json.loads(path.read_text(encoding="utf-8")).get("resultList", {}).get("result", [])
        out += [(r, path) for r in results]
    return out


def test_europepmc_grants_corrections_and_retractions_match_the_json(corpus_dir: Path) -> None:
    counts = {"grants": 0, "corrections": 0, "retracted": 0}
    pages = {path: parse_search(path.read_bytes()).records for path in {p for _, p in _search_results(corpus_dir)}}
    for result, path in _search_results(corpus_dir):
        record = next(r for r in pages[path] if r.flags.get("id") == result["id"])
        grant_ids = [g["grantId"] for g in result.get("grantsList", {}).get("grant", []) if g.get("grantId")]
        assert [g.grant_id for g in record.funding if g.grant_id] == grant_ids
        corrections = result.get("commentCorrectionList", {}).get("commentCorrection", [])
        assert [(u.type, u.pmid) for u in record.updates] == [(EPMC_TYPES[c["type"]], c["id"]) for c in corrections]
        assert record.license == result.get("license", "")
        pub = Publication()
        apply_record(pub, record, {}, "https://www.ebi.ac.uk/europepmc/x", FetcherArgs())
        retracted = "Retracted Publication" in result.get("pubTypeList", {}).get("pubType", []) or any(
            c["type"] == "Retraction in" for c in corrections)
        assert pub.retracted == retracted
        counts["grants"] += len(grant_ids)
        counts["corrections"] += len(corrections)
        counts["retracted"] += retracted
    assert all(counts.values()), counts


@pytest.mark.parametrize("name", ["PMC8164761.xml", "PMC8071313.xml"])
def test_rich_parts_survive_the_stored_json(corpus_dir: Path, name: str) -> None:
    record = parse_jats((corpus_dir / "files" / "europepmc_fulltext" / name).read_bytes())[0]
    pub = Publication()
    apply_record(pub, record, PartType.europepmc_xml, "https://www.ebi.ac.uk/x", FetcherArgs())
    assert pub.references.items and pub.sections.items and pub.license.content
    again = Publication.from_json(json.loads(json.dumps(pub.to_json(computed=False))))
    assert again == pub
    assert again.to_json(FetcherArgs())["references"]["list"][0].keys() == {"pmid", "pmcid", "doi", "title", "text"}


@pytest.mark.slow  # a whole-corpus sweep: every corpus page parsed twice
def test_page_licence_is_the_dublin_core_rights_tag(corpus_dir: Path) -> None:
    from pubfetch.extract.clean import parse_html
    from pubfetch.extract.page_license import LICENSE_META, page_license

    found = 0
    for path in sorted((corpus_dir / "files" / "publisher_page").glob("*/*.html")):
        root = etree.HTML(path.read_bytes(), etree.HTMLParser(encoding="utf-8"))
        if root is None:
            continue
        rights = [" ".join((m.get("content") or "").split()) for m in root.iter("meta")
                  if (m.get("name") or "").lower() in LICENSE_META and (m.get("content") or "").strip()]
        licence, where = page_license(parse_html(path.read_bytes()))
        if rights:
            assert (licence, where) == (rights[0], "dc"), path.name
            found += 1
    assert found


def test_europepmc_xml_answers_give_the_same_rich_parts() -> None:
    xml = b"""<responseWrapper><hitCount>1</hitCount><resultList><result><id>1</id><source>MED</source>
    <pmid>1</pmid><title>T</title><pubTypeList><pubType>Retracted Publication</pubType></pubTypeList>
    <grantsList><grant><grantId>G1</grantId><agency>A &amp;amp; B</agency></grant></grantsList>
    <commentCorrectionList><commentCorrection><id>5</id><source>MED</source><reference>X. doi: 10.1/x.</reference>
    <type>Expression of concern in</type></commentCorrection></commentCorrectionList><license>cc by</license>
    </result></resultList></responseWrapper>"""
    record = parse_search(xml).records[0]
    assert [(g.agency, g.grant_id) for g in record.funding] == [("A & B", "G1")]
    assert [(u.type, u.pmid, u.doi) for u in record.updates] == [("ExpressionOfConcernIn", "5", "10.1/X")]
    assert record.license == "cc by"


@pytest.mark.parametrize(("epmc", "pubmed"), [
    ("Retraction in", "RetractionIn"), ("Retraction of", "RetractionOf"), ("Erratum for", "ErratumFor"),
    ("Expression of concern for", "ExpressionOfConcernFor"), ("Update in", "UpdateIn"), ("Comment on", "CommentOn"),
    ("Corrected and republished from", "CorrectedandRepublishedFrom"),
    ("Summary for patients in", "SummaryForPatientsIn"), ("RetractionIn", "RetractionIn"),
])
def test_europepmc_update_types_map_to_pubmeds_reftypes(epmc: str, pubmed: str) -> None:
    from pubfetch.model.rich import update_type

    assert update_type(epmc) == pubmed


def test_page_sections_follow_the_heading_structure() -> None:
    from pubfetch.extract.clean import parse_html
    from pubfetch.extract.page_sections import page_sections

    soup = parse_html("""<html><body><div id="body"><p>Lead.</p><h2>1. Introduction</h2><p>Why.</p>
        <div><h3>1.1 Aims</h3><p>What.</p><ul><li>one</li><li>two</li></ul></div><h2>2. Methods</h2>
        <figure><figcaption>Figure 1. A setup.</figcaption></figure></div></body></html>""")
    sections = page_sections(soup.select("#body"))
    assert [(s.level, s.title, s.text) for s in sections] == [
        (1, "1. Introduction", "Why."), (2, "1.1 Aims", "What.\n\none\n\ntwo"), (1, "2. Methods", "Figure 1. A setup.")]
    assert page_sections(soup.select("p")) == []  # no heading: no sections


@pytest.mark.slow  # a whole-corpus sweep: every rule page of the corpus parsed
def test_page_sections_of_rule_pages_are_the_headings_of_the_body(corpus_dir: Path) -> None:
    from pubfetch.extract.clean import parse_html
    from pubfetch.extract.page_sections import page_sections
    from pubfetch.rules import ScrapingRules

    rules = ScrapingRules.load(None, None)
    checked = 0
    for manifest in ("pages.jsonl", "pages3.jsonl"):
        for line in (corpus_dir / manifest).read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            rule = rules.journal_rule(entry["url"]) if entry["resource"] == "publisher_page" else None
            if rule is None or rule.selector("fulltext") is None or not entry.get("body"):
                continue
            soup = parse_html((corpus_dir / entry["body"]).read_bytes())
            roots = rule.selector("fulltext").select(soup)
            ids = {id(r) for r in roots}
            outer = [r for r in roots if not any(id(a) in ids for a in r.parents)]
            headings = [" ".join(h.get_text().split()) for r in outer
                        for h in ([r] if r.name in ("h1", "h2", "h3", "h4", "h5", "h6") else
                                  r.find_all(["h1", "h2", "h3", "h4", "h5", "h6"]))]
            headings = [h for h in headings if h]  # a heading without text starts no section
            assert [" ".join(s.title.split()) for s in page_sections(roots)] == headings, entry["name"]
            checked += bool(headings)
    assert checked >= 10
