"""schema.org metadata in JSON-LD (``<script type="application/ld+json">``): the article a page describes.

Many current platforms (Zenodo and other InvenioRDM sites, Figshare, Springer Nature, Frontiers, preprint servers,
data repositories) describe the page's work as a schema.org ``ScholarlyArticle``, ``Article``, ``Dataset``, ... in
JSON-LD, sometimes instead of HighWire ``citation_*`` tags. :func:`json_ld_tags` turns the description into
``jsonld.*`` tags (``jsonld.headline``, ``jsonld.description``, ``jsonld.keywords``, ``jsonld.doi``,
``jsonld.author``, ``jsonld.datepublished``, ``jsonld.journal``, ``jsonld.publisher``, ``jsonld.pdf``) that the meta
parser reads like the other tag families, so precedence stays in one table there.

Bounded and forgiving: scripts larger than :data:`MAX_SCRIPT` are skipped, invalid JSON is skipped (logged at debug),
nesting is walked to a fixed depth, and only the first work of a described type is read (one of a specific type before a
plain ``CreativeWork``).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from typing import Any

from pubfetch import ids as idmod

log = logging.getLogger(__name__)

__all__ = ["MAX_SCRIPT", "WORK_TYPES", "json_ld_tags"]

#: Scripts longer than this (characters) are not parsed.
MAX_SCRIPT = 2_000_000
#: schema.org types of a described work, as written in ``@type`` (a prefix ``schema:`` or the full IRI is allowed).
WORK_TYPES = frozenset({
    "scholarlyarticle", "medicalscholarlyarticle", "article", "newsarticle", "techarticle", "report", "dataset",
    "creativework", "chapter", "book", "thesis", "publicationissue", "blogposting",
})  # fmt: skip
#: The type of any work: a page's article wins over it (a site, a journal or a collection is one too)
_GENERIC_WORK = "creativework"
_SCRIPT = re.compile(r"<script\b[^>]*\btype\s*=\s*[\"']?application/ld\+json[\"']?[^>]*>(.*?)</script\s*>",
                     re.IGNORECASE | re.DOTALL)
_MAX_DEPTH = 6


def _objects(value: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every JSON object in a JSON-LD document, outer first (``@graph`` lists and nested values included)."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, dict):
        yield value
        for child in value.values():
            if isinstance(child, (dict, list)):
                yield from _objects(child, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item, depth + 1)


def _types(obj: dict[str, Any]) -> set[str]:
    value = obj.get("@type", ())
    values = value if isinstance(value, list) else [value]
    return {str(v).rsplit("/", 1)[-1].rsplit(":", 1)[-1].lower() for v in values if isinstance(v, str)}


def _texts(value: Any) -> list[str]:
    """Text values of a property: a string, a list of them, or objects with a name/@value."""
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [str(value)]
    if isinstance(value, dict):
        for key in ("name", "@value", "value", "url", "@id"):
            if key in value:
                return _texts(value[key])
        return []
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


def _person(value: Any) -> list[str]:
    """An author's name; a Person's ``familyName`` and ``givenName`` as "Family, Given", which the meta reader splits
    family first (a ``name`` alone leaves the split to its guess)."""
    if isinstance(value, dict):
        family, given = (_texts(value.get(k))[:1] for k in ("familyName", "givenName"))
        if family and given:
            return [f"{family[0]}, {given[0]}"]
    return _texts(value)


def _doi(obj: dict[str, Any]) -> str:
    """A DOI among ``identifier`` (text, or PropertyValue objects), ``sameAs``, ``@id`` and ``url``."""
    candidates: list[str] = []
    identifier = obj.get("identifier")
    for item in identifier if isinstance(identifier, list) else [identifier]:
        if isinstance(item, dict) and str(item.get("propertyID", "")).lower() == "doi":
            candidates += _texts(item.get("value"))
        else:
            candidates += _texts(item)
    for key in ("sameAs", "@id", "url"):
        candidates += _texts(obj.get(key))
    return next((doi for candidate in candidates if (doi := idmod.doi_in_value(candidate))), "")


def _pdf(obj: dict[str, Any]) -> list[str]:
    links = []
    encodings = obj.get("encoding") or obj.get("distribution") or []
    for item in encodings if isinstance(encodings, list) else [encodings]:
        if isinstance(item, dict) and "pdf" in str(item.get("encodingFormat", "")).lower():
            links += _texts(item.get("contentUrl"))
    return links


def _work(scripts: list[str]) -> dict[str, Any] | None:
    """The page's work: the first described object of a specific type (an article, a data set, a chapter ...), else
    the first plain ``CreativeWork`` (a ``@graph`` may open with the site or journal as one, with a DOI of its own)."""
    generic: dict[str, Any] | None = None
    for script in scripts:
        if len(script) > MAX_SCRIPT:
            log.debug("JSON-LD script of %d characters skipped", len(script))
            continue
        try:
            document = json.loads(script)
        except ValueError as e:
            log.debug("invalid JSON-LD skipped: %s", e)
            continue
        for obj in _objects(document):
            types = _types(obj) & WORK_TYPES
            if not types or not (obj.get("headline") or obj.get("name")):
                continue
            if types - {_GENERIC_WORK}:
                return obj
            generic = generic or obj
    return generic


def json_ld_tags(html: str) -> list[tuple[str, str]]:
    """``(jsonld.<field>, value)`` pairs of the first described work of a page (none when it has no JSON-LD)."""
    if "ld+json" not in html:
        return []
    work = _work([m.group(1) for m in _SCRIPT.finditer(html)])
    if work is None:
        return []
    tags = [("jsonld.headline", t) for t in _texts(work.get("headline") or work.get("name"))[:1]]
    tags += [("jsonld.description", t) for t in _texts(work.get("abstract") or work.get("description"))]
    keywords = work.get("keywords")
    tags += [("jsonld.keywords", t) for t in _texts(keywords)]
    if doi := _doi(work):
        tags.append(("jsonld.doi", doi))
    authors = work.get("author") or work.get("creator") or []
    for author in authors if isinstance(authors, list) else [authors]:
        tags += [("jsonld.author", t) for t in _person(author)[:1]]
    tags += [("jsonld.datepublished", t) for t in _texts(work.get("datePublished"))[:1]]
    part_of = work.get("isPartOf")
    tags += [("jsonld.journal", t) for t in _texts(part_of)[:1] if isinstance(part_of, (dict, str))]
    tags += [("jsonld.publisher", t) for t in _texts(work.get("publisher"))[:1]]
    tags += [("jsonld.pdf", link) for link in _pdf(work)]
    return tags
