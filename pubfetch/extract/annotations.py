"""Europe PMC Annotations API answers (``annotationsByArticleIds``) as mined terms per article: EFO and GO as
PubFetcher's parts, and every type the answer holds as typed terms (``mined_terms``, grouped the same way per type).

PubFetcher's efo and go parts are the text-mined "Experimental Methods" and "Gene Ontology" annotations of an
article. Each annotation is one mention: its ``exact`` text, an optional ``frequency`` (1 when absent) and the ontology
URIs in ``tags``. Mentions are grouped by URI: the term is the exact text seen most often for that URI (the first
seen among equals, whitespace collapsed), the count is the summed frequency, and terms are sorted by count, most
frequent first (ties keep the order of first mention). Mentions without any URI are grouped by their text.

One request may name many articles (``articleIds=MED:1,PMC:PMC2``); the answer holds one entry per article that has
annotations, silently leaving out the others. Both answer forms are read: JSON (a list of ``{source, extId, pmcid,
annotations}``) and XML, where any element with an ``extId`` child is taken as an article and the ``annotation``
elements below it as its mentions, so the wrapper element names do not matter.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from pubfetch.extract.errors import ParseError, ServiceError, load_json, load_xml
from pubfetch.extract.europepmc import clean_pmcid, clean_pmid
from pubfetch.extract.xmlsafe import local_name
from pubfetch.model.mined_terms import TypedTerm
from pubfetch.model.parts import MinedTerm
from pubfetch.model.record import ArticleRecord

log = logging.getLogger(__name__)

EFO_TYPE = "Experimental Methods"
GO_TYPE = "Gene Ontology"
_WS = re.compile(r"\s+")


@dataclass
class Mention:
    """One annotation as the grouping needs it."""

    type: str
    exact: str
    frequency: int = 1
    uris: list[str] = field(default_factory=list)


def group_mentions(mentions: Iterable[Mention]) -> list[MinedTerm]:
    """Mentions of one type grouped into mined terms (see the module docstring)."""
    counts: dict[str, int] = {}
    spellings: dict[str, dict[str, int]] = {}
    for mention in mentions:
        exact = _WS.sub(" ", mention.exact).strip()
        keys = list(dict.fromkeys(u for u in mention.uris if u)) or ([f"text:{exact}"] if exact else [])
        for key in keys:
            counts[key] = counts.get(key, 0) + mention.frequency
            texts = spellings.setdefault(key, {})
            if exact:
                texts[exact] = texts.get(exact, 0) + mention.frequency
    terms = []
    for key, count in counts.items():
        texts = spellings[key]
        term = max(texts, key=lambda t: texts[t]) if texts else ""  # max keeps the first among equals
        terms.append(MinedTerm(term, count, "" if key.startswith("text:") else key))
    terms.sort(key=lambda t: -t.count)  # stable: ties stay in order of first mention
    return [t for t in terms if t.term]


def _frequency(value: Any) -> int:
    if value is None or value == "":
        return 1
    try:
        n = int(str(value).strip())
    except ValueError:
        log.warning("annotation frequency '%s' is not a number, counted as 1", value)
        return 1
    if n < 1:
        log.warning("annotation frequency %d is below 1, counted as 1", n)
        return 1
    return n


def _article(source: str, ext_id: str, pmcid: str, mentions: list[Mention]) -> ArticleRecord:
    rec = ArticleRecord()
    source = source.strip().upper()
    where = "Europe PMC annotations"
    if source == "MED":
        rec.pmid = clean_pmid(ext_id, where)
    elif source == "PMC":
        rec.pmcid = clean_pmcid(ext_id, where)
    rec.pmcid = rec.pmcid or clean_pmcid(pmcid, where)
    rec.efo = group_mentions(m for m in mentions if m.type == EFO_TYPE)
    rec.go = group_mentions(m for m in mentions if m.type == GO_TYPE)
    rec.mined_terms = [TypedTerm(kind, t.term, t.count, t.uri) for kind in dict.fromkeys(m.type for m in mentions)
                       if kind for t in group_mentions(m for m in mentions if m.type == kind)]
    rec.flags = {"source": source, "extId": ext_id.strip()}
    return rec


def _str(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return ""


def _json_mention(a: Any) -> Mention | None:
    if not isinstance(a, dict):
        return None
    tags = a.get("tags")
    uris = [_str(t.get("uri")).strip() for t in (tags if isinstance(tags, list) else []) if isinstance(t, dict)]
    return Mention(_str(a.get("type")).strip(), _str(a.get("exact")), _frequency(a.get("frequency")), uris)


def parse_annotations_json(data: str | bytes) -> list[ArticleRecord]:
    """A JSON answer: one record per article, with pmid or pmcid set (from ``source``/``extId`` and ``pmcid``),
    ``efo`` and ``go`` filled, and flags source/extId.

    Raises ParseError (a ValueError) when it is not such an answer.
    """
    d = load_json(data, "Europe PMC annotations answer")
    if isinstance(d, dict):
        if "errMsg" in d or "errCode" in d or "error" in d:
            raise ServiceError(f"Europe PMC annotations error: {d.get('errMsg') or d.get('error') or d.get('errCode')}")
        raise ParseError("Europe PMC annotations answer is a JSON object, not a list of articles")
    if not isinstance(d, list):
        raise ParseError(f"Europe PMC annotations answer is a JSON {type(d).__name__}, not a list of articles")
    records = []
    for article in d:
        if not isinstance(article, dict) or ("annotations" not in article and "extId" not in article):
            log.warning("Europe PMC annotations entry that is not an article skipped")
            continue
        raw = article.get("annotations")
        mentions = [m for m in (_json_mention(a) for a in (raw if isinstance(raw, list) else [])) if m is not None]
        records.append(_article(_str(article.get("source")), _str(article.get("extId")),
                                _str(article.get("pmcid")), mentions))
    return records


def _child_text(el: etree._Element, name: str) -> str:
    for c in el:
        if isinstance(c.tag, str) and local_name(c) == name:
            return "".join(c.itertext())
    return ""


def _xml_mention(a: etree._Element) -> Mention:
    uris = [("".join(u.itertext())).strip() for u in a.iter()
            if isinstance(u.tag, str) and local_name(u) == "uri" and local_name(u.getparent()) == "tag"]
    return Mention(_child_text(a, "type").strip(), _child_text(a, "exact"), _frequency(_child_text(a, "frequency")),
                   uris)


def parse_annotations_xml(data: str | bytes) -> list[ArticleRecord]:
    """An XML answer, read like the JSON one. Raises XmlError/ParseError (ValueErrors)."""
    root = load_xml(data, "Europe PMC annotations answer")
    articles = [el for el in root.iter() if isinstance(el.tag, str)
                and any(isinstance(c.tag, str) and local_name(c) == "extId" for c in el)]
    if not articles:
        if any(isinstance(el.tag, str) and local_name(el) == "annotation" for el in root.iter()):
            log.warning("Europe PMC annotations answer has annotations outside any article (no extId); ignored")
            return []
        if not any(isinstance(c.tag, str) for c in root):
            return []  # an empty list element: none of the articles has annotations
        raise ParseError(f"not a Europe PMC annotations answer: <{local_name(root)}> holds no articles")
    records = []
    for article in articles:
        mentions = [_xml_mention(a) for a in article.iter()
                    if isinstance(a.tag, str) and local_name(a) == "annotation"]
        records.append(_article(_child_text(article, "source"), _child_text(article, "extId"),
                                _child_text(article, "pmcid"), mentions))
    return records


def parse_annotations(data: str | bytes) -> list[ArticleRecord]:
    """Either form, told apart by the first character."""
    head = data[:200].lstrip() if isinstance(data, str) else data[:200].lstrip(b" \t\r\n\xef\xbb\xbf")
    if head[:1] in ("<", b"<"):
        return parse_annotations_xml(data)
    return parse_annotations_json(data)


def by_id(records: Iterable[ArticleRecord]) -> dict[str, ArticleRecord]:
    """Records keyed by their PMID and by their PMCID (as the chain looks them up)."""
    out: dict[str, ArticleRecord] = {}
    for rec in records:
        for key in (rec.pmid, rec.pmcid):
            if key:
                out.setdefault(key, rec)
    return out
