"""Europe PMC search answers (``resultType=core``, JSON or XML) as :class:`ArticleRecord` objects.

PubFetcher asks Europe PMC first because one answer fills almost everything: IDs, title, keywords, MeSH, abstract,
journal, dates, citation count, open-access status, and the flags that decide whether the full text and the mined
terms are worth asking for. pubfetch ORs many IDs into one search, so a page holds many records; :func:`pick_result`
reproduces PubFetcher's choice when several records answer for one publication.

Field mapping (PubFetcher's, plus what the LOCKSS layer wants):

* IDs from ``pmid``, ``pmcid``, ``doi``, each validated as PubFetcher's setIds does (invalid ones are logged, dropped);
  the DOI is normalised (upper-case ASCII) like every DOI in pubfetch.
* ``title`` and ``abstractText`` carry HTML-ish markup (``<h4>Methods</h4>``, ``<i>``, ``<sup>``): inline tags are
  dropped, headings and paragraphs become paragraphs separated by a blank line, as JATS abstracts are written.
* MeSH from ``meshHeading``: ``descriptorName`` and the heading's own ``majorTopic_YN``; qualifiers are ignored, as in
  PubFetcher (Europe PMC gives no descriptor unique IDs, so ``unique_id`` stays empty).
* pubDate is ``firstPublicationDate`` (PubFetcher's choice); when missing, ``electronicPublicationDate``,
  ``printPublicationDate`` or ``dateOfPublication`` ("2012 Apr" -> 2012-04-01), in that order.
* corresponding authors: authors whose affiliation holds an e-mail address (name "firstName lastName", ORCID as an
  https://orcid.org/ URL), as PubFetcher's develop branch does.
* ``source`` PPR means preprint; ``isOpenAccess`` Y/N is ``oa``; the Y/N flags go to ``flags`` as booleans.
* funding, corrections and licence: :mod:`pubfetch.extract.europepmc_rich`.

The "lite" result type (``journalTitle``, ``journalVolume``, ``journalIssn``, ``pubType`` as one string) is read too.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lxml import etree

from pubfetch.extract.errors import ParseError, ServiceError, load_json, load_xml
from pubfetch.extract.europepmc_rich import add_rich_parts
from pubfetch.extract.text_links import record_links
from pubfetch.extract.xmlsafe import local_name
from pubfetch.ids import extract_dois, extract_pmcids, extract_pmids, is_doi, is_pmcid, is_pmid, normalise_doi
from pubfetch.model.parts import Author, CorrespAuthor, MeshTerm
from pubfetch.model.record import ArticleRecord, Link
from pubfetch.model.retraction import RetractionSource, RetractionVerdict, says_retracted

log = logging.getLogger(__name__)

LINK_SOURCE = "europepmc fullTextUrlList"
ORCID_URL = "https://orcid.org/"

#: Y/N fields copied to ``ArticleRecord.flags`` as booleans (resources decide on them what to fetch next).
YN_FLAGS = (
    "isOpenAccess", "inEPMC", "inPMC", "hasPDF", "hasBook", "hasSuppl", "hasReferences", "hasTextMinedTerms",
    "hasDbCrossReferences", "hasLabsLinks", "hasTMAccessionNumbers", "hasData", "hasEvaluations",
)  # fmt: skip
DATE_FLAGS = ("firstPublicationDate", "electronicPublicationDate", "firstIndexDate")

# PubFetcher prefers MEDLINE, then PubMed Central, then preprints, then whatever came first.
_SOURCE_RANK = {"MED": 0, "PMC": 1, "PPR": 2}
_F1000_DOI = re.compile(r"^10\.12688/F1000RESEARCH\..+\Z")
EMAIL_IN_TEXT = re.compile(r"[A-Za-z0-9+._-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
_MONTHS = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_MAX_XML_DEPTH = 8


@dataclass
class SearchPage:
    """One page of a Europe PMC search: its records in answer order, the total hit count and the cursor of the next page
    (empty on the last page)."""

    records: list[ArticleRecord] = field(default_factory=list)
    hit_count: int | None = None
    next_cursor_mark: str = ""


# ------------------------------------------------------------------------------------------------------- IDs


def clean_pmid(text: str, where: str = "") -> str:
    """A valid PMID from a field, or one labelled ``PMID: n`` inside it (PubFetcher's setIds); "" and a warning else."""
    t = (text or "").strip()
    if not t or is_pmid(t):
        return t
    found = extract_pmids(t)
    if found:
        return found[0]
    log.warning("invalid PMID '%s'%s", t, f" in {where}" if where else "")
    return ""


def clean_pmcid(text: str, where: str = "") -> str:
    """A valid PMCID; a bare number gets its "PMC" prefix (JATS ``pub-id-type="pmc"``)."""
    t = (text or "").strip()
    if t.isdigit() and t[0] != "0":
        t = "PMC" + t
    if not t or is_pmcid(t):
        return t
    found = extract_pmcids(t)
    if found and is_pmcid(found[0]):
        return found[0]
    log.warning("invalid PMCID '%s'%s", t, f" in {where}" if where else "")
    return ""


def clean_doi(text: str, where: str = "") -> str:
    """A valid DOI without spaces, normalised (resolver prefix dropped, ASCII upper-cased); "" and a warning else."""
    t = (text or "").strip()
    if not t:
        return ""
    if is_doi(t) and " " not in t:
        return normalise_doi(t)
    found = [d for d in extract_dois(t) if " " not in d]
    if found:
        return found[0]
    log.warning("invalid DOI '%s'%s", t, f" in {where}" if where else "")
    return ""


# ------------------------------------------------------------------------------------------------ markup text

_BLOCK_MARKUP = frozenset((
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "div", "br", "li", "ul", "ol", "dl", "dt", "dd", "table", "tr", "td", "th",
    "blockquote", "section", "hr", "title", "sec", "list", "list-item", "abstract",
))  # fmt: skip
_INLINE_MARKUP = frozenset((
    "i", "b", "u", "s", "em", "strong", "sup", "sub", "span", "a", "small", "big", "tt", "code", "font", "inf", "sc",
    "strike", "abbr", "cite", "q", "mark", "ins", "del", "var", "kbd", "samp", "dfn", "italic", "bold", "underline",
    "math", "mi", "mo", "mn", "ms", "mtext", "mrow", "msub", "msup", "msubsup", "mfrac", "msqrt", "mover", "munder",
))  # fmt: skip
_TAG = re.compile(
    r"<\s*(/?)\s*(" + "|".join(sorted(_BLOCK_MARKUP | _INLINE_MARKUP, key=len, reverse=True)) + r")(?=[\s/>])[^<>]*>",
    re.IGNORECASE,
)
_BREAK = None  # token: paragraph boundary
# jsoup's whitespace (what PubFetcher collapses) and its invisible characters (dropped)
_WS = re.compile(r"[ \t\n\r\f\u00a0]+")
_INVISIBLE = re.compile(r"[\u200b\u00ad]")


def _string_tokens(markup: str) -> Iterator[str | None]:
    pos = 0
    for m in _TAG.finditer(markup):
        yield html.unescape(markup[pos:m.start()])
        if m.group(2).lower() in _BLOCK_MARKUP:
            yield _BREAK
        pos = m.end()
    yield html.unescape(markup[pos:])


def _element_tokens(el: etree._Element) -> Iterator[str | None]:
    """Text and paragraph boundaries inside an XML element: markup given as child elements, or escaped in the text
    (Europe PMC's XML escapes the abstract's HTML), or both."""
    walker = etree.iterwalk(el, events=("start", "end"))
    for event, node in walker:
        block = isinstance(node.tag, str) and local_name(node).lower() in _BLOCK_MARKUP
        if event == "start":
            if node is not el and block:
                yield _BREAK
            if isinstance(node.tag, str) and node.text:
                yield from _string_tokens(node.text)
        elif node is not el:
            if block:
                yield _BREAK
            if node.tail:
                yield from _string_tokens(node.tail)


def _assemble(tokens: Iterable[str | None], paragraphs: bool) -> str:
    parts: list[str] = []
    current: list[str] = []
    for token in tokens:
        if token is _BREAK:
            parts.append("".join(current))
            current = []
        else:
            current.append(token)
    parts.append("".join(current))
    cleaned = (_WS.sub(" ", _INVISIBLE.sub("", p)).strip() for p in parts)
    return ("\n\n" if paragraphs else " ").join(p for p in cleaned if p)


def markup_text(markup: str | etree._Element | None, paragraphs: bool = True) -> str:
    """Plain text of an HTML-ish value: inline tags dropped, entities decoded, whitespace collapsed; block tags
    (headings, paragraphs, line breaks) separate paragraphs by a blank line, or by a space when ``paragraphs`` is
    off."""
    if markup is None:
        return ""
    if isinstance(markup, str):
        return _assemble(_string_tokens(markup), paragraphs)
    return _assemble(_element_tokens(markup), paragraphs)


# ------------------------------------------------------------------------------------------------ raw access


def _get(d: Any, key: str) -> Any:
    """``d[key]`` with keys compared case-insensitively (the XML and JSON forms spell ``ISSN``/``issn`` differently)."""
    if not isinstance(d, Mapping):
        return None
    if key in d:
        return d[key]
    low = key.lower()
    for k, v in d.items():
        if isinstance(k, str) and k.lower() == low:
            return v
    return None


def _path(d: Any, *keys: str) -> Any:
    for key in keys:
        d = _get(d, key)
    return d


def _s(value: Any) -> str:
    """A scalar as trimmed text; objects, lists, booleans and nulls give ""."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return ""


def _items(value: Any) -> list[Any]:
    """A JSON list, or a single object where a list was expected (one-element lists collapse in some encoders)."""
    if isinstance(value, list):
        return value
    if value is None or value == "":
        return []
    return [value]


def _listed(d: Any, list_name: str, item_name: str) -> list[Any]:
    return _items(_get(_get(d, list_name), item_name))


def _yes(value: Any) -> bool | None:
    text = _s(value).upper()
    if text in ("Y", "YES", "TRUE"):
        return True
    if text in ("N", "NO", "FALSE"):
        return False
    if isinstance(value, bool):
        return value
    return None


def _int(value: Any) -> int | None:
    text = _s(value)
    try:
        n = int(text)
    except ValueError:
        return None
    return n if n >= 0 else None


# --------------------------------------------------------------------------------------------------- dates


def iso_date(text: str) -> str:
    """``YYYY-MM-DD`` when the text is a valid date of that form, else ""."""
    t = (text or "").strip()
    if len(t) != 10:
        return ""
    try:
        return date.fromisoformat(t).isoformat()
    except ValueError:
        return ""


def loose_date(text: str) -> str:
    """``2012 Apr 5`` / ``2012 Apr`` / ``2012`` / ``2012-04`` as YYYY-MM-DD, missing parts -01 (PubMed's rule)."""
    words = re.split(r"[\s/-]+", (text or "").strip())
    if not words or not re.fullmatch(r"\d{4}", words[0]):
        return ""
    year, month, day = int(words[0]), 1, 1
    if len(words) > 1:
        w = words[1].lower()
        month = int(w) if w.isdigit() else _MONTHS.get(w[:3], 0)
        if len(words) > 2 and words[2].isdigit():
            day = int(words[2])
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return ""


def _pub_date(r: Any) -> str:
    for value in (_get(r, "firstPublicationDate"), _get(r, "electronicPublicationDate"),
                  _path(r, "journalInfo", "printPublicationDate")):
        found = iso_date(_s(value))
        if found:
            return found
    return loose_date(_s(_path(r, "journalInfo", "dateOfPublication")))


# ------------------------------------------------------------------------------------------------- records


def _mesh(r: Any) -> list[MeshTerm]:
    terms = []
    for heading in _listed(r, "meshHeadingList", "meshHeading"):
        name = _s(_get(heading, "descriptorName"))
        if not name:
            log.warning("MeSH heading without descriptorName skipped")
            continue
        terms.append(MeshTerm(name, _yes(_get(heading, "majorTopic_YN")) is True, ""))
    return terms


def _orcid(author: Any) -> str:
    for author_id in _items(_get(author, "authorId")):
        if _s(_get(author_id, "type")).upper() == "ORCID":
            value = _s(_get(author_id, "value"))
            if value:
                return value if value.lower().startswith("http") else ORCID_URL + value
    return ""


def _affiliations(author: Any) -> list[str]:
    found = [_s(_get(a, "affiliation")) for a in _listed(author, "authorAffiliationDetailsList", "authorAffiliation")]
    found.append(_s(_get(author, "affiliation")))
    return list(dict.fromkeys(a for a in found if a))


def _authors(r: Any) -> tuple[list[Author], list[CorrespAuthor]]:
    authors: list[Author] = []
    corresp: list[CorrespAuthor] = []
    for a in _listed(r, "authorList", "author"):
        given, family = _s(_get(a, "firstName")), _s(_get(a, "lastName"))
        affiliations = _affiliations(a)
        if family:
            author = Author(family, given, "", _orcid(a), affiliations)
        elif collective := _s(_get(a, "collectiveName")):
            author = Author(literal=collective, orcid=_orcid(a), affiliations=affiliations)
        else:
            author = Author.from_name(_s(_get(a, "fullName")), _orcid(a), affiliations)
        if author.is_empty():
            continue
        authors.append(author)
        emails = [m.group(0) for aff in affiliations for m in EMAIL_IN_TEXT.finditer(aff)]
        if emails:
            corresp.append(CorrespAuthor(name=author.full_name, orcid=author.orcid, email=emails[0]))
    return authors, corresp


def _links(r: Any) -> tuple[list[Link], list[dict[str, str]]]:
    links: list[Link] = []
    raw: list[dict[str, str]] = []
    for u in _listed(r, "fullTextUrlList", "fullTextUrl"):
        url = _s(_get(u, "url"))
        if not url:
            continue
        style = _s(_get(u, "documentStyle")).lower()
        link = Link(url, "pdf" if style == "pdf" else "html", LINK_SOURCE)
        if link not in links:  # the same DOI link is often listed for two sites
            links.append(link)
        raw.append({"url": url, "documentStyle": style, "availability": _s(_get(u, "availability")),
                    "availabilityCode": _s(_get(u, "availabilityCode")), "site": _s(_get(u, "site"))})
    return links, raw


def _split_list(text: str) -> list[str]:
    return [t.strip() for t in re.split(r"[;,]", text) if t.strip()]


def result_record(r: Mapping[str, Any]) -> ArticleRecord:
    """One ``result`` of a search answer (as decoded JSON, or the equivalent mapping built from XML)."""
    rec = ArticleRecord()
    source = _s(_get(r, "source")).upper()
    _record_ids(rec, r, source)
    _record_text(rec, r)
    _record_journal(rec, r)
    rec.pub_date = _pub_date(r)
    rec.citations_count = _int(_get(r, "citedByCount"))
    rec.oa = _yes(_get(r, "isOpenAccess"))
    rec.preprint = source == "PPR" if source else None
    rec.authors, rec.corresp_author = _authors(r)
    rec.pub_types = _pub_types(r)
    rec.links, raw_links = _links(r)
    rec.flags = _result_flags(r, source, raw_links)
    add_rich_parts(rec, _listed(r, "grantsList", "grant"), _listed(r, "commentCorrectionList", "commentCorrection"),
                   _s(_get(r, "license")))
    rec.retraction = RetractionVerdict(RetractionSource.europepmc, says_retracted(rec.pub_types, rec.updates))
    rec.text_links = record_links(rec.abstract)
    return rec


def _record_ids(rec: ArticleRecord, r: Mapping[str, Any], source: str) -> None:
    """The result's own ``id`` is a PMID for MED results and a PMCID for PMC ones, when the dedicated field is empty."""
    where = "Europe PMC result"
    rec.pmid = clean_pmid(_s(_get(r, "pmid")) or (_s(_get(r, "id")) if source == "MED" else ""), where)
    rec.pmcid = clean_pmcid(_s(_get(r, "pmcid")) or (_s(_get(r, "id")) if source == "PMC" else ""), where)
    rec.doi = clean_doi(_s(_get(r, "doi")), where)


def _record_text(rec: ArticleRecord, r: Mapping[str, Any]) -> None:
    """Title, abstract, keywords and MeSH: title and abstract may carry inline markup (str in JSON, elements in XML)."""
    title = _get(r, "title")
    rec.title = markup_text(title if isinstance(title, (str, etree._Element)) else "", False)
    abstract = _get(r, "abstractText")
    rec.abstract = markup_text(abstract if isinstance(abstract, (str, etree._Element)) else "", True)
    rec.keywords = list(dict.fromkeys(k for k in (_s(k) for k in _listed(r, "keywordList", "keyword")) if k))
    rec.mesh = _mesh(r)


def _record_journal(rec: ArticleRecord, r: Mapping[str, Any]) -> None:
    """Journal data from ``journalInfo`` (core results), else from the flat lite-result fields."""
    journal = _path(r, "journalInfo", "journal")
    rec.journal_title = _s(_get(journal, "title")) or _s(_get(r, "journalTitle"))
    rec.volume = _s(_path(r, "journalInfo", "volume")) or _s(_get(r, "journalVolume"))
    rec.issue = _s(_path(r, "journalInfo", "issue")) or _s(_get(r, "issue"))
    rec.pages = _s(_get(r, "pageInfo"))
    rec.issn, rec.eissn = _s(_get(journal, "issn")), _s(_get(journal, "essn"))
    if not (rec.issn or rec.eissn):
        issns = _split_list(_s(_get(r, "journalIssn")))
        rec.issn, rec.eissn = (issns + ["", ""])[:2]
    rec.publisher = _s(_path(r, "bookOrReportDetails", "publisher"))


def _pub_types(r: Mapping[str, Any]) -> list[str]:
    """Core results list publication types; lite results join them with ``;`` in one string."""
    pub_types = [_s(t) for t in _listed(r, "pubTypeList", "pubType")]
    if not pub_types:
        pub_types = [t.strip() for t in _s(_get(r, "pubType")).split(";")]
    return list(dict.fromkeys(t for t in pub_types if t))


def _result_flags(r: Mapping[str, Any], source: str, raw_links: object) -> dict[str, object]:
    """What the chain decides by later (has full-text XML, open access, dates...), kept only when the result says it."""
    flags: dict[str, object] = {}
    if source:
        flags["source"] = source
    if _s(_get(r, "id")):
        flags["id"] = _s(_get(r, "id"))
    for name in YN_FLAGS:
        value = _yes(_get(r, name))
        if value is not None:
            flags[name] = value
    for name in DATE_FLAGS:
        if _s(_get(r, name)):
            flags[name] = _s(_get(r, name))
    for name in ("printPublicationDate", "dateOfPublication"):
        if _s(_path(r, "journalInfo", name)):
            flags[name] = _s(_path(r, "journalInfo", name))
    if raw_links:
        flags["fullTextUrlList"] = raw_links
    full_text_ids = [_s(i) for i in _listed(r, "fullTextIdList", "fullTextId") if _s(i)]
    if full_text_ids:
        flags["fullTextIds"] = full_text_ids
    if _s(_get(r, "license")):
        flags["license"] = _s(_get(r, "license"))
    return flags


def _error_message(d: Any) -> str:
    message = _s(_get(d, "errMsg")) or _s(_get(d, "errorMessage"))
    code = _s(_get(d, "errCode"))
    return f"{message} (code {code})" if code else message


def parse_search_json(text: str | bytes) -> SearchPage:
    """A ``format=json`` search answer. Raises ParseError (a ValueError) when it is not one."""
    d = load_json(text, "Europe PMC search answer")
    if not isinstance(d, dict):
        raise ParseError(f"Europe PMC search answer is a JSON {type(d).__name__}, not an object")
    if _get(d, "errMsg") is not None or _get(d, "errCode") is not None:
        raise ServiceError(f"Europe PMC error: {_error_message(d)}")
    hit_count = _int(_get(d, "hitCount"))
    result_list = _get(d, "resultList")
    if result_list is None and hit_count is None:
        raise ParseError("not a Europe PMC search answer: no hitCount and no resultList")
    if result_list is not None and not isinstance(result_list, dict):
        raise ParseError("Europe PMC search answer: resultList is not an object")
    results = _items(_get(result_list, "result"))
    records = []
    for r in results:
        if isinstance(r, dict):
            records.append(result_record(r))
        else:
            log.warning("Europe PMC result that is not an object skipped")
    if hit_count is not None and hit_count < len(records):
        log.warning("Europe PMC hitCount %d is less than the %d results given", hit_count, len(records))
    return SearchPage(records, hit_count, _s(_get(d, "nextCursorMark")))


# --------------------------------------------------------------------------------------------------- XML


def plain_text(el: etree._Element) -> str:
    """All text inside an element, without the names of unresolved entity references (``itertext`` keeps them)."""
    parts: list[str] = []
    for event, node in etree.iterwalk(el, events=("start", "end")):
        if event == "start" and isinstance(node.tag, str) and node.text:
            parts.append(node.text)
        elif event == "end" and node is not el and node.tail:
            parts.append(node.tail)
    return "".join(parts)


def _xml_value(el: etree._Element, depth: int) -> Any:
    """An XML element as the value the JSON form has in its place: text, an object, or (for ``...List``) lists."""
    kids = [c for c in el if isinstance(c.tag, str)]
    if not kids or depth >= _MAX_XML_DEPTH:
        text = plain_text(el).strip()
        if el.attrib:
            attrs: dict[str, Any] = {str(k).rsplit("}", 1)[-1]: v for k, v in el.attrib.items()}
            attrs["value"] = text
            return attrs
        return text
    out: dict[str, Any] = {}
    if local_name(el).endswith("List"):
        for c in kids:
            out.setdefault(local_name(c), []).append(_xml_value(c, depth + 1))
        return out
    for c in kids:
        name = local_name(c)
        if name not in out:  # the result's title and abstract stay elements: their markup may be child elements
            out[name] = c if depth == 0 and name.lower() in ("title", "abstracttext") else _xml_value(c, depth + 1)
    return out


def _xml_result(el: etree._Element) -> dict[str, Any]:
    value = _xml_value(el, 0)
    return value if isinstance(value, dict) else {}


def parse_search_xml(data: str | bytes) -> SearchPage:
    """A ``format=xml`` search answer (``<responseWrapper>``). Raises XmlError/ParseError (ValueErrors)."""
    root = load_xml(data, "Europe PMC search answer")
    if local_name(root) != "responseWrapper":
        raise ParseError(f"not a Europe PMC search answer: root element is <{local_name(root)}>")
    children = {local_name(c): c for c in reversed(root) if isinstance(c.tag, str)}
    if "errMsg" in children or "errCode" in children:
        message = " ".join(plain_text(children[k]).strip() for k in ("errMsg", "errCode") if k in children)
        raise ServiceError(f"Europe PMC error: {message}")
    hit_count = _int(plain_text(children["hitCount"])) if "hitCount" in children else None
    cursor = plain_text(children["nextCursorMark"]).strip() if "nextCursorMark" in children else ""
    result_list = children.get("resultList")
    if result_list is None and hit_count is None:
        raise ParseError("not a Europe PMC search answer: no hitCount and no resultList")
    records = []
    for el in result_list if result_list is not None else ():
        if isinstance(el.tag, str) and local_name(el) == "result":
            records.append(result_record(_xml_result(el)))
    return SearchPage(records, hit_count, cursor)


def parse_search(data: str | bytes) -> SearchPage:
    """A search answer in either form, told apart by its first character."""
    head = data[:200].lstrip() if isinstance(data, str) else data[:200].lstrip(b" \t\r\n\xef\xbb\xbf")
    if head[:1] in ("<", b"<"):
        return parse_search_xml(data)
    return parse_search_json(data)


# ---------------------------------------------------------------------------------------------- choosing


def ids_mismatch(record: ArticleRecord, pmid: str = "", pmcid: str = "", doi: str = "") -> list[str]:
    """The IDs of the record that contradict the given ones (PubFetcher skips such results); F1000 DOIs that differ
    only between versions do not count."""
    wrong = []
    if pmid and record.pmid and record.pmid != pmid:
        wrong.append(f"PMID {record.pmid} (expected {pmid})")
    if pmcid and record.pmcid and record.pmcid != pmcid:
        wrong.append(f"PMCID {record.pmcid} (expected {pmcid})")
    if doi and record.doi:
        want = normalise_doi(doi)
        if record.doi != want and not (_F1000_DOI.match(want) and _F1000_DOI.match(record.doi)):
            wrong.append(f"DOI {record.doi} (expected {want})")
    return wrong


def pick_result(records: list[ArticleRecord], pmid: str = "", pmcid: str = "", doi: str = "") -> ArticleRecord | None:
    """PubFetcher's choice among the results for one publication: a lone result is taken as it is; among several,
    those whose IDs contradict the publication's are skipped and MED beats PMC beats PPR beats the rest (first wins
    among equals)."""
    if len(records) == 1:
        return records[0]
    best: ArticleRecord | None = None
    best_rank = len(_SOURCE_RANK)
    for record in records:
        wrong = ids_mismatch(record, pmid, pmcid, doi)
        if wrong:
            log.warning("Europe PMC result skipped, mismatching %s", ", ".join(wrong))
            continue
        rank = _SOURCE_RANK.get(str(record.flags.get("source", "")), len(_SOURCE_RANK))
        if best is None or rank < best_rank:
            best, best_rank = record, rank
    return best
