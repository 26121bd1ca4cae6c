"""HTML forms of publications and webpages, in PubFetcher's structure (``<h2>``/``<h3>``, ``<div><span>`` pairs, links).

Everything that comes from a fetched page is escaped: titles, abstracts and keywords are text written by third parties
and may contain markup (PubFetcher left keywords, license and language unescaped; pubfetch escapes them too). Links are
only made for http, https and ftp URLs, with the address escaped as an attribute, so a ``javascript:`` URL is shown as
text.
"""

from __future__ import annotations

from collections.abc import Sequence

from pubfetch import ids as idmod
from pubfetch.model.entry import FetchState
from pubfetch.model.identity_sites import RejectedSite, UnverifiedSite
from pubfetch.model.links import LINK_KINDS, TextLink
from pubfetch.model.part_type import PartName
from pubfetch.model.parts import ListPart, MeshTerm, MinedTerm, StringPart, VisitedSite
from pubfetch.model.publication import Publication
from pubfetch.model.rich import Grant, Reference, RichList, RichName, RichText, Section, Update
from pubfetch.model.webpage import Webpage
from pubfetch.output.common import (
    PART_LABELS,
    date_text,
    in_order,
    instant_text,
    is_id_only,
    source_text,
    type_label,
)
from pubfetch.output.rich import RICH_LABELS, retraction_notice
from pubfetch.output.text import corresp_text, extras

SEPARATOR = "\n<hr>\n"
MESH_LINK = "https://www.ncbi.nlm.nih.gov/mesh/?term="
HTTP_STATUS_LINK = "https://http.cat/"
_LINK_SCHEMES = ("http://", "https://", "ftp://")


def escape_html(text: str) -> str:
    """Escape text for an element's content (``&``, ``<``, ``>``), as PubFetcher's ``escapeHtml``."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_html_attribute(text: str) -> str:
    """Escape text for an attribute value: every ASCII character that is not a letter or digit becomes ``&#N;``.

    Stricter than needed, but it leaves no way out of a quoted or unquoted attribute (PubFetcher's rule).
    """
    return "".join(f"&#{ord(c)};" if ord(c) < 128 and not c.isalnum() else c for c in text)


def link_html(href: str, text: str | None = None) -> str:
    """A link for a web URL, else just the escaped text; with one argument the URL is its own text.

    Empty text gives an empty string (PubFetcher's ``getLinkHtml``), so an absent URL leaves no empty ``<a>``.
    """
    if text is None:
        text = href
    if not text:
        return ""
    if not href or not href.startswith(_LINK_SCHEMES):
        return escape_html(text)
    return f'<a href="{escape_html_attribute(href)}">{escape_html(text)}</a>'


def paragraphs_html(text: str) -> str:
    """Text as paragraphs: blank lines split ``<p>`` elements, single newlines become ``<br>``."""
    return "<p>" + escape_html(text).replace("\n\n", "</p><p>").replace("\n", "<br>") + "</p>"


def _bool(b: bool) -> str:
    return "true" if b else "false"


def _div(label: str, value_html: str) -> str:
    return f"<div><span>{label}:</span> <span>{value_html}</span></div>"


def ids_html(pmid: str, pmcid: str, doi: str, tab: bool = False) -> str:
    """IDs linked to PubMed, PMC and doi.org; ``tab`` gives a table row with one cell per ID."""
    links = [
        link_html(idmod.pmid_url(pmid) if idmod.is_pmid(pmid) else "", pmid),
        link_html(idmod.pmcid_url(pmcid) if idmod.is_pmcid(pmcid) else "", pmcid),
        link_html(idmod.doi_url(idmod.normalise_doi(doi)) if idmod.is_doi(doi) else "", doi),
    ]
    if tab:
        return "<tr><td>" + "</td><td>".join(links) + "</td></tr>"
    return ", ".join(x for x in links if x)


def ids_with_urls_html(pmid: str, pmcid: str, doi: str, pmid_url: str, pmcid_url: str, doi_url: str) -> str:
    urls = [link_html(source_text(u)) for i, u in ((pmid, pmid_url), (pmcid, pmcid_url), (doi, doi_url)) if i and u]
    return f"{ids_html(pmid, pmcid, doi)} ({', '.join(urls)})"


def _mesh_html(term: MeshTerm) -> str:
    if term.unique_id:
        href = f"{MESH_LINK}%22{term.unique_id}%22"
    elif term.term:
        href = f"{MESH_LINK}%22{term.term.replace(' ', '+')}%22"
    else:
        href = ""
    return link_html(href, (term.term or "NA") + ("*" if term.major_topic else ""))


def _mined_html(term: MinedTerm) -> str:
    out = link_html(term.uri, term.term or "NA")
    return out + (f" <small>{term.count}</small>" if term.count != 0 else "")


def part_plain_html(part: StringPart | ListPart) -> str:
    """A part's content: text as paragraphs; list items joined by ``; `` with MeSH and mined terms linked."""
    if isinstance(part, StringPart):
        return paragraphs_html(part.content)
    out = []
    for item in part.items:
        if isinstance(item, MeshTerm):
            out.append(_mesh_html(item))
        elif isinstance(item, MinedTerm):
            out.append(_mined_html(item))
        else:
            out.append(escape_html(str(item)))
    return "; ".join(out)


def part_html(part: StringPart | ListPart) -> str:
    return (
        f"<h3>{PART_LABELS[part.name]}</h3>\n"
        f"{part_plain_html(part)}\n"
        f"{_div('Type', escape_html(type_label(part.type)))}\n"
        f"{_div('URL', link_html(source_text(part.url)))}\n"
        f"{_div('Timestamp', instant_text(part.timestamp))}\n"
        f"{_div('Size', str(part.size))}"
    )


def state_html(state: FetchState) -> str:
    return (
        f"{_div('Fetch time', instant_text(state.fetch_time))}\n"
        f"{_div('Retry counter', str(state.retry_counter))}\n"
        f"{_div('Fetch exception', _bool(state.fetch_exception))}"
    )


def visited_html(site: VisitedSite) -> str:
    return (
        f"<span>{link_html(site.url)}</span>\n"
        f"{_div('Type', escape_html(type_label(site.type)))}\n"
        f"{_div('From', link_html(site.from_url))}\n"
        f"{_div('Timestamp', instant_text(site.timestamp))}"
    )


def rejected_html(site: RejectedSite) -> str:
    claimed = _cited_ids_html(site.pmid, site.pmcid, site.doi) or escape_html(site.title)
    return (
        f"<span>{link_html(site.url)}</span>\n"
        f"{_div('Type', escape_html(type_label(site.type)))}\n"
        f"{_div('From', link_html(site.from_url))}\n"
        f"{_div('Reason', escape_html(site.reason.value))}\n"
        f"{_div('Claimed', claimed)}\n"
        f"{_div('Timestamp', instant_text(site.timestamp))}"
    )


def unverified_html(site: UnverifiedSite) -> str:
    return (
        f"<span>{link_html(site.url)}</span>\n"
        f"{_div('Type', escape_html(type_label(site.type)))}\n"
        f"{_div('Titles', escape_html('; '.join(site.titles)))}\n"
        f"{_div('Timestamp', instant_text(site.timestamp))}"
    )


def _cited_ids_html(pmid: str, pmcid: str, doi: str) -> str:
    links = [
        link_html(idmod.pmid_url(pmid), f"PMID {pmid}") if pmid else "",
        link_html(idmod.pmcid_url(pmcid), pmcid) if pmcid else "",
        link_html(idmod.doi_url(doi), f"doi:{doi}") if doi else "",
    ]
    return ", ".join(x for x in links if x)


def _rich_item_html(item: object) -> str:
    if isinstance(item, Grant):
        country = f"({item.country})" if item.country else ""
        return escape_html(" ".join(p for p in (item.agency, item.grant_id, country) if p))
    if isinstance(item, Update):
        return escape_html(item.type) + " " + _cited_ids_html(item.pmid, "", item.doi)
    if isinstance(item, Reference):
        ids = _cited_ids_html(item.pmid, item.pmcid, item.doi)
        return escape_html(item.text or item.title) + (f" [{ids}]" if ids else "")
    if isinstance(item, Section):
        return "&nbsp;" * 4 * (item.level - 1) + escape_html(item.title or "(untitled)")
    if isinstance(item, TextLink):
        value = link_html(item.value) if item.kind == "url" else escape_html(item.value)
        return f"{escape_html(LINK_KINDS.get(item.kind, item.kind))}: {value}"
    return escape_html(str(item))


def rich_part_html(part: RichList | RichText) -> str:
    """A rich part: the licence as a link, references as a numbered list, the others as bullet lists."""
    if isinstance(part, RichText):
        body = f"<p>{link_html(part.content)}</p>"
    else:
        tag = "ol" if part.name is RichName.references else "ul"
        body = f"<{tag}>\n" + "".join(f"<li>{_rich_item_html(i)}</li>\n" for i in part.items) + f"</{tag}>"
    return (
        f"<h3>{RICH_LABELS[part.name]}</h3>\n{body}\n"
        f"{_div('Type', escape_html(type_label(part.type)))}\n"
        f"{_div('URL', link_html(part.url))}\n"
        f"{_div('Timestamp', instant_text(part.timestamp))}\n"
        f"{_div('Size', str(part.size))}"
    )


def rich_parts_html(pub: Publication) -> str:
    return "".join(rich_part_html(pub.rich(n)) + "\n" for n in RichName if not pub.rich(n).is_empty())


def retraction_html(pub: Publication) -> str:
    notice = retraction_notice(pub)
    return f"<p><strong>{escape_html(notice)}</strong></p>\n" if notice else ""


def publication_html(pub: Publication) -> str:
    p = pub
    out = ["<h2>Publication</h2>\n", retraction_html(p)]
    out += [part_html(part) + "\n" for part in p.parts()]
    out.append(rich_parts_html(p))
    out += [
        "<br>\n",
        state_html(p.state) + "\n",
        "<br>\n",
        _div("Open Access", _bool(p.oa)) + "\n",
        _div("Preprint", _bool(p.preprint)) + "\n",
        _div("Journal title", escape_html(p.journal_title)) + "\n",
        _div("Pub. date", date_text(p.pub_date)) + "\n",
        _div("Citations count", f"{p.citations_count} ({instant_text(p.citations_timestamp)})") + "\n",
        _div("Corresp. author", escape_html(corresp_text(p.corresp_author))) + "\n",
    ]
    out += [_div(label, escape_html(value)) + "\n" for label, value in extras(p)]
    out += ["<br>\n", "<div><span>Visited sites:</span></div>\n", "<ul>\n"]
    out += ["<li>\n" + visited_html(s) + "\n</li>\n" for s in p.visited_sites]
    out.append("</ul>")
    for label, items in (("Rejected sites (another paper's)", [rejected_html(s) for s in p.rejected_sites]),
                         ("Unverified sites", [unverified_html(s) for s in p.unverified_sites])):
        if items:
            out += [f"\n<div><span>{label}:</span></div>\n", "<ul>\n"]
            out += ["<li>\n" + item + "\n</li>\n" for item in items]
            out.append("</ul>")
    return "".join(out)


def publication_plain_html(pub: Publication) -> str:
    p = pub
    head = f"<h2>{ids_html(p.pmid.content, p.pmcid.content, p.doi.content)}</h2>\n" + retraction_html(p)
    return head + "\n".join(part_plain_html(part) for part in p.parts()[3:])


def publication_parts_html(pub: Publication, parts: Sequence[PartName], plain: bool = False) -> str:
    """The ``--out-part`` parts; plain and only IDs gives a table row (the caller opens and closes the table)."""
    chosen = in_order(parts)
    if not plain:
        return "\n\n".join(part_html(pub.part(n)) for n in chosen)
    id_parts = (PartName.pmid, PartName.pmcid, PartName.doi)
    pmid, pmcid, doi = (pub.part(n).plain() if n in chosen else "" for n in id_parts)
    if is_id_only(chosen):
        return ids_html(pmid, pmcid, doi, tab=True)
    pieces = [ids_html(pmid, pmcid, doi)] if any(n.is_id for n in chosen) else []
    pieces += [part_plain_html(pub.part(n)) for n in chosen if not n.is_id]
    return "\n\n".join(pieces)


def webpage_html(page: Webpage) -> str:
    w = page
    status = link_html(f"{HTTP_STATUS_LINK}{w.status_code}", str(w.status_code)) if w.status_code > 0 \
        else str(w.status_code)
    return "\n".join([
        "<h2>Webpage</h2>",
        state_html(w.state),
        "<br>",
        _div("Start URL", link_html(w.start_url)),
        _div("Final URL", link_html(w.final_url)),
        _div("Content type", escape_html(w.content_type)),
        _div("Status code", status),
        _div("Content time", instant_text(w.content_time)),
        "<br>",
        _div("License", escape_html(w.license)),
        _div("Language", escape_html(w.language)),
        "<br>",
        _div("Title length", str(len(w.title))),
        _div("Content length", str(len(w.content))),
        "<br>",
        _div("Title", escape_html(w.title)),
        "<br>",
        paragraphs_html(w.content),
    ])


def webpage_plain_html(page: Webpage) -> str:
    return f"<h2>{link_html(page.start_url, page.title)}</h2>\n{paragraphs_html(page.content)}"


def html_document_start(title: str = "pubfetch") -> str:
    """Head of a standalone page: the charset declaration makes non-ASCII titles and abstracts display correctly."""
    return (
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{escape_html(title)}</title>\n</head>\n<body>\n"
    )


HTML_DOCUMENT_END = "</body>\n</html>\n"
