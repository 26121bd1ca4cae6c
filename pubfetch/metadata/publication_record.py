"""Every fetched :class:`~pubfetch.model.publication.Publication` as a LOCKSS-style ArticleMetadata record.

So that publications fetched by pubfetch and articles extracted from archived content can be stored, compared and
exported the same way, a publication converts to an :class:`~pubfetch.metadata.article_metadata.ArticleMetadata`:

* raw keys: the publication's parts and fields under PubFetcher's JSON names (lower-cased, as raw keys are):
  ``pmid``, ``pmcid``, ``doi``, ``title``, ``keywords``, ``mesh``, ``efo``, ``go``, ``abstract``, ``fulltext``,
  ``oa``, ``preprint``, ``journaltitle``, ``pubdate`` (``YYYY-MM-DD``), ``citationscount``, ``correspauthor`` and
  ``authors`` (string -> string maps; an author's are the author record's ``family``, ``given``, ``literal``,
  ``orcid`` and ``affiliations``), ``volume``, ``issue``, ``pages``, ``issn``, ``eissn``, ``publisher``,
  ``pubtypes``, ``retracted``, ``license``, and the maps of ``funding`` (``agency``, ``grantid``, ``country``),
  ``links`` (``kind``, ``value``, ``registry``, ``sectionpath`` as a JSON array, ``sentence``, ``marked``),
  ``minedterms`` (``type``, ``term``, ``count``, ``uri``), ``updates`` (``type``, ``pmid``, ``doi``), ``references``
  (``pmid``, ``pmcid``, ``doi``, ``title``, ``text``), ``sections`` (``title``, ``level``, ``text``), ``tables``
  (``id``, ``label``, ``caption``, ``header``, ``rows``, ``footnotes``, ``sectionpath`` as JSON arrays,
  ``truncated``), ``figures`` (``id``, ``label``, ``caption``, ``url``), ``supplements`` (``id``, ``label``,
  ``caption``, ``url``, ``mediatype``, ``size``) and ``statements`` (``type``, ``title``, ``text``), which have no
  LOCKSS field. Lists give one raw value per
  element; empty parts and unknown values (-1) are left out. MeSH terms are maps (``term``, ``majortopic``,
  ``uniqueid``), EFO and GO terms maps (``term``, ``count``, ``uri``).
* cooked: ``doi``, ``article.title``, ``author`` (every author of ``Publication.authors`` as ``Family, Given``, a
  collective by its literal name; the corresponding authors' names when the full list is unknown),
  ``publication.title``, ``date``, ``volume``, ``issue``, ``startpage`` and ``endpage`` (from ``pages``: "123-130",
  "e4375"), ``issn``, ``eissn``, ``keywords``, ``abstract``, ``access.url`` (the DOI link, else the PMC, else the
  PubMed link, else the URL the full text, abstract or title came from), ``publisher``, ``provider`` (the
  publisher, as LOCKSS does without a title database), ``pubtype`` ``journal`` and ``articletype``
  ``journal_article``.

Values a field's validator refuses (an ISSN such as "1234") stay visible as invalid values, as with extracted records.

Public API: ``publication_record(pub) -> ArticleMetadata`` and :data:`PUBLICATION_COOK_MAP`.
"""

from __future__ import annotations

import json
import logging

from pubfetch import ids as idmod
from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_metadata import ArticleMetadata, CookMap
from pubfetch.metadata.extractors import split_pages
from pubfetch.model.parts import Author, CorrespAuthor, MeshTerm, MinedTerm
from pubfetch.model.publication import Publication
from pubfetch.model.timefmt import date_human
from pubfetch.model.webpage import Webpage

__all__ = ["PUBLICATION_COOK_MAP", "publication_record", "webpage_record"]

log = logging.getLogger(__name__)

PUBLICATION_COOK_MAP = CookMap((
    ("doi", mf.FIELD_DOI),
    ("title", mf.FIELD_ARTICLE_TITLE),
    ("journaltitle", mf.FIELD_PUBLICATION_TITLE),
    ("pubdate", mf.FIELD_DATE),
    ("volume", mf.FIELD_VOLUME),
    ("issue", mf.FIELD_ISSUE),
    ("issn", mf.FIELD_ISSN),
    ("eissn", mf.FIELD_EISSN),
    ("keywords", mf.FIELD_KEYWORDS),
    ("abstract", mf.FIELD_ABSTRACT),
    ("publisher", (mf.FIELD_PUBLISHER, mf.FIELD_PROVIDER)),
))
"""Raw keys of a publication that map one to one onto fields (pages, authors, access URL and types are set in
code)."""


def _mesh(term: MeshTerm) -> dict[str, str]:
    return {"term": term.term, "majortopic": "true" if term.major_topic else "false", "uniqueid": term.unique_id}


def _mined(term: MinedTerm) -> dict[str, str]:
    return {"term": term.term, "count": str(term.count), "uri": term.uri}


def _corresp(author: CorrespAuthor) -> dict[str, str]:
    return {"name": author.name, "orcid": author.orcid, "email": author.email, "phone": author.phone,
            "uri": author.uri}


def _author(author: Author) -> dict[str, str]:
    return {"family": author.family, "given": author.given, "literal": author.literal, "orcid": author.orcid,
            "affiliations": "; ".join(author.affiliations)}


def _raw(am: ArticleMetadata, pub: Publication) -> None:
    for key, value in (("pmid", pub.pmid.content), ("pmcid", pub.pmcid.content), ("doi", pub.doi.content),
                       ("title", pub.title.content), ("abstract", pub.abstract.content),
                       ("fulltext", pub.fulltext.content), ("journaltitle", pub.journal_title),
                       ("pubdate", date_human(pub.pub_date) if pub.pub_date >= 0 else ""),
                       ("citationscount", str(pub.citations_count) if pub.citations_count >= 0 else ""),
                       ("volume", pub.volume), ("issue", pub.issue), ("pages", pub.pages), ("issn", pub.issn),
                       ("eissn", pub.eissn), ("publisher", pub.publisher)):
        if value:
            am.put_raw(key, value)
    am.put_raw("oa", "true" if pub.oa else "false")
    am.put_raw("preprint", "true" if pub.preprint else "false")
    for keyword in pub.keywords.items:
        am.put_raw("keywords", str(keyword))
    for term in pub.mesh.items:
        am.put_raw("mesh", _mesh(term))
    for name, part in (("efo", pub.efo), ("go", pub.go)):
        for term in part.items:
            am.put_raw(name, _mined(term))
    for corresp in pub.corresp_author:
        am.put_raw("correspauthor", _corresp(corresp))
    for author in pub.authors:
        am.put_raw("authors", _author(author))
    for pub_type in pub.pub_types:
        am.put_raw("pubtypes", pub_type)
    _rich_raw(am, pub)


def _rich_raw(am: ArticleMetadata, pub: Publication) -> None:
    """The rich parts as raw values: ArticleMetadata has no field for grants, links, mined terms, updates, references,
    sections or the full text's structure."""
    am.put_raw("retracted", "true" if pub.retracted else "false")
    if pub.license.content:
        am.put_raw("license", pub.license.content)
    for part in (pub.funding, pub.links, pub.mined_terms, pub.updates, pub.references, pub.sections, pub.tables,
                 pub.figures, pub.supplements, pub.statements):
        for item in part.items:
            am.put_raw(part.name.value.lower(), {k.lower(): _raw_text(v) for k, v in item.to_json().items()})


def _raw_text(value: object) -> str:
    """A raw map's value: text as it is, a flag as "true"/"false", a list (a section path, a table's rows) as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _access_url(pub: Publication) -> str:
    if pub.doi.content:
        return idmod.doi_url(pub.doi.content)
    if pub.pmcid.content:
        return idmod.pmcid_url(pub.pmcid.content)
    if pub.pmid.content:
        return idmod.pmid_url(pub.pmid.content)
    for part in (pub.fulltext, pub.abstract, pub.title):
        if part.url:
            return part.url
    return ""


def publication_record(pub: Publication) -> ArticleMetadata:
    """The ArticleMetadata record of a publication (see the module docstring)."""
    am = ArticleMetadata()
    _raw(am, pub)
    for error in am.cook(PUBLICATION_COOK_MAP):
        log.debug("publication %s: %s (raw key %s)", pub, error, error.raw_key)
    first, last = split_pages(pub.pages)
    for field, page in ((mf.FIELD_START_PAGE, first), (mf.FIELD_END_PAGE, last)):
        if page:
            am.put(field, page)
    names = [a.sort_name for a in pub.authors] or [c.name for c in pub.corresp_author]
    for name in names:
        if name and not am.put(mf.FIELD_AUTHOR, name):
            log.debug("publication %s: author %r refused", pub, name)
    access = _access_url(pub)
    if access:
        am.put(mf.FIELD_ACCESS_URL, access)
    am.put(mf.FIELD_PUBLICATION_TYPE, mf.PUBLICATION_TYPE_JOURNAL)
    am.put(mf.FIELD_ARTICLE_TYPE, mf.ARTICLE_TYPE_JOURNALARTICLE)
    return am


def webpage_record(page: Webpage) -> ArticleMetadata:
    """A webpage or doc as a record: raw keys are its PubFetcher JSON names (lower-cased), cooked ``article.title``,
    ``access.url`` (the final URL) and ``language``; used by the ``metadata`` output formats for every entry kind."""
    am = ArticleMetadata()
    for key, value in (("starturl", page.start_url), ("finalurl", page.final_url), ("contenttype", page.content_type),
                       ("statuscode", str(page.status_code) if page.status_code else ""), ("title", page.title),
                       ("license", page.license), ("language", page.language), ("content", page.content)):
        if value:
            am.put_raw(key, value)
    if page.title:
        am.put(mf.FIELD_ARTICLE_TITLE, page.title)
    if page.final_url or page.start_url:
        am.put(mf.FIELD_ACCESS_URL, page.final_url or page.start_url)
    if page.language:
        am.put(mf.FIELD_LANGUAGE, page.language)
    return am
