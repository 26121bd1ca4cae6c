"""The DataCite parser on every recorded DataCite answer of ../shared/corpus/apis.jsonl: each record equals the
recorded DOI field by field, the expected values read from the JSON here (json only)."""

from __future__ import annotations

import json

import pytest

from pubfetch.extract.datacite import parse_datacite
from pubfetch.extract.errors import ParseError, ServiceError
from pubfetch.model.rich import Relation
from support.apis_corpus import answered, orcid, upper_doi, words

RELATIONS = {"IsPreprintOf": "is-preprint-of", "HasPreprint": "has-preprint", "IsVersionOf": "is-version-of",
             "HasVersion": "has-version"}


def creator(c: dict) -> tuple:
    orcids = [i["nameIdentifier"] for i in c.get("nameIdentifiers") or [] if i.get("nameIdentifierScheme") == "ORCID"]
    affiliations = [words(a["name"] if isinstance(a, dict) else a) for a in c.get("affiliation") or []]
    given, family = words(c.get("givenName")), words(c.get("familyName"))
    return (given, family, " ".join(p for p in (given, family) if p) or words(c.get("name")),
            orcid(orcids[0]) if orcids else "", affiliations)


def check_doi(record, resource: dict) -> None:
    a = resource["attributes"]
    where = a["doi"]
    assert record.doi.upper() == upper_doi(a["doi"]), where
    main = [t["title"] for t in a["titles"] if not t.get("titleType")]
    assert record.title == words(main[0]), where
    abstracts = [d["description"] for d in a["descriptions"] if d.get("descriptionType") == "Abstract"]
    assert record.abstract == (words(abstracts[0]) if abstracts else ""), where
    listed = [c for c in a["creators"] if not (c.get("givenName") or c.get("familyName")) and ";" in c.get("name", "")]
    if listed:  # a name listing several people, "Family, Given; Family, Given": one author each
        families = [piece.split(",")[0].strip() for c in listed for piece in c["name"].split(";") if piece.strip()]
        assert [x.family for x in record.authors] == families, where
    else:
        expected = [creator(c) for c in a["creators"]]
        assert [(x.given if e[0] or e[1] else e[0], x.family if e[0] or e[1] else e[1], x.full_name, x.orcid,
                 x.affiliations) for x, e in zip(record.authors, expected, strict=True)] == expected, where
    container = a.get("container") or {}
    assert record.journal_title == (words(container.get("title")) if container.get("type") == "Journal" else "")
    publisher = a["publisher"]
    assert record.publisher == words(publisher["name"] if isinstance(publisher, dict) else publisher), where
    issued = [d["date"] for d in a["dates"] if d.get("dateType") == "Issued"]
    if issued and len(issued[0]) >= 10:
        assert record.pub_date == issued[0][:10], where
    else:
        assert (record.pub_date, record.flags["date_partial"]) == ("", str(a["publicationYear"])), where
    assert record.pub_types == [a["types"]["resourceTypeGeneral"]], where
    assert [(g.agency, g.grant_id) for g in record.funding] == [
        (words(f["funderName"]), f.get("awardNumber") or "") for f in a["fundingReferences"]], where
    rights = a["rightsList"][0] if a["rightsList"] else {}
    assert record.license == (rights.get("rightsUri") or words(rights.get("rights"))), where
    related = [r for r in a["relatedIdentifiers"] if r.get("relatedIdentifierType") == "DOI"]
    assert [r.doi for r in record.references] == [upper_doi(r["relatedIdentifier"]) for r in related
                                                  if r["relationType"] in ("References", "Cites")], where
    assert record.relations == [Relation(RELATIONS[r["relationType"]], upper_doi(r["relatedIdentifier"]))
                                for r in related if r["relationType"] in RELATIONS], where


def test_every_recorded_doi_reads_field_by_field(corpus_dir):
    checked = 0
    for entry, doc in answered(corpus_dir, "datacite_doi", "datacite_dois_list"):
        resources = doc["data"] if isinstance(doc["data"], list) else [doc["data"]]
        records = parse_datacite(json.dumps(doc))
        assert len(records) == len(resources), entry["name"]
        for record, resource in zip(records, resources, strict=True):
            check_doi(record, resource)
            checked += 1
    assert checked == 16  # 11 DOIs and a list page of 5


def test_recorded_features_are_read(corpus_dir):
    records = {r.doi.upper(): r for _, doc in answered(corpus_dir, "datacite_doi", "datacite_dois_list")
               for r in parse_datacite(json.dumps(doc))}
    assert ("European Commission", "654039") in [(g.agency, g.grant_id) for g in records["10.5438/6423"].funding]
    assert records["10.5438/6423"].authors[0].orcid == "https://orcid.org/0000-0001-5331-6592"
    assert records["10.25491/8KMC-G314"].authors[0].literal == "The GTEx Consortium"
    assert records["10.5281/ZENODO.3520062"].relations == [Relation("has-version", "10.5281/ZENODO.3520063")]


def test_error_answers_raise():
    with pytest.raises(ServiceError):  # DataCite's JSON:API error shape
        parse_datacite(json.dumps({"errors": [{"status": "404", "title": "The resource you are looking for doesn't "
                                                                         "exist."}]}))
    with pytest.raises(ParseError):
        parse_datacite(b"<html>not found</html>")
