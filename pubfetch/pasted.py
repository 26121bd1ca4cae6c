"""Publication IDs as people paste them, made into the bare ID (or the link) that :mod:`pubfetch.ids` then checks.

An ID copied from a paper, a reference list or a web page comes with what surrounds it: a label (``PMID: 22351513``,
``PMC 8071313``, ``doi: 10...``), the sentence's punctuation (``10.1038/nature12373.``), brackets or quotes, or the
publisher's page it was found on (``https://www.biorxiv.org/content/10.1101/696633v1``). What is cut is what no ID of
its kind can hold, so an ID written bare passes untouched, and a DOI keeps a bracket it opens itself (SICI DOIs).
Nothing here says whether the result is a valid ID: that stays PubFetcher's test, in :mod:`pubfetch.ids`.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, unquote, urlsplit

__all__ = ["clean_tail", "doi_in_page_url", "unpasted"]

#: Typographic quotes a word processor or a web page puts around a pasted ID (straight ones are ASCII's).
_OPENING_QUOTES = "\u201c\u2018\u00ab\u2039\u201e\u201a"
_CLOSING_QUOTES = "\u201d\u2019\u00bb\u203a\u201c\u2018"
#: What a sentence or a list puts after an ID (an ellipsis too): cut unless the ID itself opened the bracket.
_TRAILING = ".,;:)]}>\"'\u2026" + _CLOSING_QUOTES
#: What may wrap a pasted ID: ``(PMID: 123)``, ``<https://doi.org/...>``, quotes.
_LEADING = "([{<\"'" + _OPENING_QUOTES
_CLOSES = {")": "(", "]": "[", "}": "{", ">": "<"}
#: Space around a pasted ID: Unicode spaces (no-break, thin, ideographic), zero-width characters and a copied
#: ``&nbsp;`` entity; none can be part of an ID.
_EDGE_SPACE = r"(?:[\s\u200b\u200c\u200d\u2060\ufeff]|&nbsp;)+"
_LEADING_SPACE = re.compile("^" + _EDGE_SPACE)
_TRAILING_SPACE = re.compile(_EDGE_SPACE + "$")
#: What PubMed's and PMC's citation lines put after an ID: ``[PubMed]``, ``[PubMed - indexed for MEDLINE]``,
#: ``[PMC free article]``, ``[Google Scholar]``, ``[CrossRef]``.
_CITATION_TAGS = re.compile(
    r"(?i)(?:\s{0,8}\[(?:pubmed\b[^\]]{0,80}|pmc free article|google scholar|crossref)\]){1,4}$")

#: A label before the ID: ``PMID:``, ``pmid``, ``PMCID:``, ``PMC`` (with a space: ``PMC8071313`` is the ID itself),
#: ``doi:``, ``DOI``; a colon (a full-width one too), an equals sign or spaces between label and ID.
_LABEL = re.compile(r"(?i)^(pmid|pmcid|pmc|doi)(?:\s*[:=\uff1a]\s*|\s+)(?=\S)")


def _trimmed(value: str) -> str:
    return _TRAILING_SPACE.sub("", _LEADING_SPACE.sub("", value))
#: A resolver link copied without its scheme.
_RESOLVERS_WITHOUT_SCHEME = ("doi.org/", "dx.doi.org/", "www.doi.org/")


def clean_tail(value: str) -> str:
    """``value`` without the punctuation of the text around it: a trailing ``.``, ``,``, ``;``, ``:``, ``…``, quote
    (straight or typographic), space, or a closing bracket that opens nowhere in it
    (``10.1016/0009-2614(95)00123-1`` keeps its own)."""
    value = _trimmed(value)
    while value and value[-1] in _TRAILING:
        opening = _CLOSES.get(value[-1])
        if opening is not None and value.count(opening) >= value.count(value[-1]):
            break
        value = _trimmed(value[:-1])
    return value


def unpasted(value: str) -> str:
    """The ID (or link) a pasted value holds: surrounding (Unicode, zero-width) space, wrapping brackets and quotes,
    a label, PubMed's ``[PubMed]`` tags and the sentence's punctuation removed; a PMCID labelled ``PMC``/``PMCID``
    gets its ``PMC`` (``PMC 8071313``, ``PMCID: 8071313``). A link keeps its form here (:func:`doi_in_page_url`
    reads a DOI from it)."""
    v = _trimmed(value)
    while v[:1] and v[0] in _LEADING:
        v = _trimmed(v.lstrip(_LEADING))
    label = _LABEL.match(v)
    if label is not None:
        v = v[label.end():].strip()
        kind = label.group(1).lower()
        if kind in ("pmc", "pmcid") and v[:1].isdigit():
            v = "PMC" + v
        elif kind in ("pmc", "pmcid") and v[:3].upper() == "PMC" and v[3:].strip()[:1].isdigit():
            v = "PMC" + v[3:].strip()  # "PMCID: PMC 8071313"
    if v.lower().startswith(_RESOLVERS_WITHOUT_SCHEME):
        v = "https://" + v
    return clean_tail(_CITATION_TAGS.sub("", v))


#: A DOI in a page's path: a whole segment "10.<registrant>" and the rest of the path after it.
_DOI_IN_PATH = re.compile(r"(?:^|/)(10\.[0-9]{4,9}(?:\.[0-9]{1,9}){0,4}/.+)$")
#: Path segments publishers put after the DOI: the page's view of the paper, not part of its DOI.
_VIEWS = frozenset({"abs", "abstract", "full", "fulltext", "full-text", "pdf", "epdf", "pdfdirect", "pdfplus",
                    "html", "meta", "figures", "tables", "references", "suppinfo", "supplementary-material",
                    "citedby", "metrics", "info", "reader", "summary", "text", "download", "article-info"})
#: What a preprint server or a publisher adds to the DOI's last segment: the format or part of the page shown.
_VIEW_SUFFIX = re.compile(r"\.(?:full(?:\.pdf(?:\+html)?|-text)?|abstract|pdf|short|article-info|article-metrics|"
                          r"supplementary-material|figures-only|extract)$", re.IGNORECASE)
#: bioRxiv's and medRxiv's version of a preprint (``696633v1``): the DOI names every version.
_PREPRINT_VERSION = re.compile(r"v[0-9]+$")
_PREPRINT_HOSTS = ("biorxiv.org", "medrxiv.org")
#: Query parameters that carry a DOI (``journals.plos.org/plosone/article?id=10.1371/...``).
_DOI_PARAMETERS = ("doi", "id", "articleid")


def doi_in_page_url(url: str) -> str:
    """The DOI a publisher's page URL carries in its path (``/doi/10...``, ``/doi/full/10...``, ``/article/10...``,
    ``/content/10.1101/696633v1``) or in a ``doi``/``id`` parameter, as written; "" when the URL carries none (a
    page named by its own number, ``nature.com/articles/s41586-...``, is not read as a DOI). The views a publisher
    appends (``/full``, ``.full.pdf``) are cut, and a bioRxiv or medRxiv version (``v1``) too."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return ""
    host = (parts.hostname or "").lower()
    found = _DOI_IN_PATH.search(unquote(parts.path))
    if found is None:
        params = {k.lower(): v for k, v in parse_qsl(parts.query)}
        doi = next((params[k] for k in _DOI_PARAMETERS if params.get(k, "").startswith("10.")), "")
        return clean_tail(doi.strip())
    segments = found.group(1).rstrip("/").split("/")
    while len(segments) > 2 and segments[-1].lower() in _VIEWS:
        segments.pop()
    doi = "/".join(segments)
    doi = _VIEW_SUFFIX.sub("", doi)
    if any(host == h or host.endswith("." + h) for h in _PREPRINT_HOSTS):
        doi = _PREPRINT_VERSION.sub("", doi)
    return clean_tail(doi)
