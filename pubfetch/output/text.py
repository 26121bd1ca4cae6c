"""Plain-text forms of publications and webpages, in PubFetcher's layout (``toString``, ``toStringPlain``).

The layout is kept line for line so that scripts written against PubFetcher's text output (grep for ``TITLE:``, cut
the ID lines) keep working. pubfetch adds only lines for what it stores beyond PubFetcher: PREPRINT (as in PubFetcher's
development branch) always, the bibliographic extras (authors, volume, ...) and the rich parts (funding, references,
...) when they are known, and a first line saying that a retracted paper was retracted.
"""

from __future__ import annotations

from collections.abc import Sequence

from pubfetch.model.entry import FetchState
from pubfetch.model.identity_sites import RejectedSite, UnverifiedSite
from pubfetch.model.part_type import PartName
from pubfetch.model.parts import Author, CorrespAuthor, ListPart, StringPart, VisitedSite
from pubfetch.model.publication import Publication
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
from pubfetch.output.rich import retraction_notice, rich_parts_text

SEPARATOR = " " + "-" * 77
"""The line between two entries of text output (PubFetcher prints it with a blank line on either side)."""


def _bool(b: bool) -> str:
    return "true" if b else "false"


def ids_text(pmid: str, pmcid: str, doi: str, tab: bool = False) -> str:
    """IDs as PubFetcher joins them: ``pmid, pmcid, doi`` skipping empty ones, or always three tab-separated columns."""
    if tab:
        return f"{pmid}\t{pmcid}\t{doi}"
    return ", ".join(i for i in (pmid, pmcid, doi) if i)


def ids_with_urls_text(pmid: str, pmcid: str, doi: str, pmid_url: str, pmcid_url: str, doi_url: str) -> str:
    """``[ids] (urls)``: the non-plain ID listing, saying where each ID was found (IDs without a URL add nothing)."""
    urls = [source_text(u) for i, u in ((pmid, pmid_url), (pmcid, pmcid_url), (doi, doi_url)) if i and u]
    return f"[{ids_text(pmid, pmcid, doi)}] ({', '.join(urls)})"


def corresp_text(authors: Sequence[CorrespAuthor]) -> str:
    return "; ".join(
        ", ".join(v for v in (a.name, a.orcid, a.email, a.phone, a.uri) if v) for a in authors
    )


def authors_text(authors: Sequence[Author]) -> str:
    def one(a: Author) -> str:
        return ", ".join(v for v in (a.full_name, a.orcid) if v)

    return "; ".join(one(a) for a in authors)


def extras(pub: Publication) -> list[tuple[str, str]]:
    """pubfetch's bibliographic fields beyond PubFetcher, as (label, value) pairs, only those that are known."""
    pairs = [
        ("Authors", authors_text(pub.authors)),
        ("Volume", pub.volume),
        ("Issue", pub.issue),
        ("Pages", pub.pages),
        ("ISSN", pub.issn),
        ("eISSN", pub.eissn),
        ("Publisher", pub.publisher),
        ("Publication types", "; ".join(pub.pub_types)),
    ]
    return [(k, v) for k, v in pairs if v]


def part_text(part: StringPart | ListPart) -> str:
    """One part with its provenance (PubFetcher's ``PublicationPart.toString``)."""
    return (
        f"{PART_LABELS[part.name].upper()}: {part.plain()}\n"
        f"    type: {type_label(part.type)}\n"
        f"    url: {source_text(part.url)}\n"
        f"    timestamp: {instant_text(part.timestamp)}\n"
        f"    size: {part.size}"
    )


def state_text(state: FetchState) -> str:
    return (
        f"FETCH TIME: {instant_text(state.fetch_time)}\n"
        f"RETRY COUNTER: {state.retry_counter}\n"
        f"FETCH EXCEPTION: {_bool(state.fetch_exception)}"
    )


def visited_text(site: VisitedSite) -> str:
    return (
        f"{site.url}\n"
        f"    type: {site.type.value}\n"
        f"    from: {site.from_url}\n"
        f"    timestamp: {instant_text(site.timestamp)}"
    )


def claimed_text(site: RejectedSite) -> str:
    """What a rejected page claimed: its IDs, else its title."""
    return " ".join(f"{label} {value}" for label, value in (("PMID", site.pmid), ("PMCID", site.pmcid),
                                                            ("DOI", site.doi)) if value) or site.title


def rejected_text(site: RejectedSite) -> str:
    return (
        f"{site.url}\n"
        f"    type: {site.type.value}\n"
        f"    from: {site.from_url}\n"
        f"    reason: {site.reason.value}\n"
        f"    claimed: {claimed_text(site)}\n"
        f"    timestamp: {instant_text(site.timestamp)}"
    )


def unverified_text(site: UnverifiedSite) -> str:
    return (
        f"{site.url}\n"
        f"    type: {site.type.value}\n"
        f"    titles: {'; '.join(site.titles)}\n"
        f"    timestamp: {instant_text(site.timestamp)}"
    )


def publication_text(pub: Publication) -> str:
    """The whole publication with every part's provenance and the fetch metadata."""
    p = pub
    notice = retraction_notice(p)
    lines = [
        notice + "\n\n" if notice else "",
        part_text(p.pmid), "\n", part_text(p.pmcid), "\n", part_text(p.doi), "\n\n",
        part_text(p.title), "\n\n",
        part_text(p.keywords), "\n", part_text(p.mesh), "\n", part_text(p.efo), "\n", part_text(p.go), "\n\n",
        part_text(p.abstract), "\n\n",
        part_text(p.fulltext), "\n\n",
        rich_parts_text(p),
        state_text(p.state), "\n\n",
        f"OPEN ACCESS: {_bool(p.oa)}\n",
        f"PREPRINT: {_bool(p.preprint)}\n",
        f"JOURNAL TITLE: {p.journal_title}\n",
        f"PUB. DATE: {date_text(p.pub_date)}\n",
        f"CITATIONS: {p.citations_count} ({instant_text(p.citations_timestamp)})\n",
        f"CORRESP. AUTHOR: {corresp_text(p.corresp_author)}\n",
    ]
    lines += [f"{label.upper()}: {value}\n" for label, value in extras(p)]
    lines.append("\nVISITED SITES:")
    lines += ["\n" + visited_text(s) for s in p.visited_sites]
    if p.rejected_sites:
        lines.append("\n\nREJECTED SITES (another paper's):")
        lines += ["\n" + rejected_text(s) for s in p.rejected_sites]
    if p.unverified_sites:
        lines.append("\n\nUNVERIFIED SITES:")
        lines += ["\n" + unverified_text(s) for s in p.unverified_sites]
    return "".join(lines)


def publication_plain_text(pub: Publication) -> str:
    """Contents only, no provenance: what ``-grep`` searches and ``--plain`` prints."""
    p = pub
    notice = retraction_notice(p)
    return (
        f"[{ids_text(p.pmid.content, p.pmcid.content, p.doi.content)}]\n\n"
        + (f"{notice}\n\n" if notice else "") +
        f"{p.title.plain()}\n\n"
        f"{p.keywords.plain()}\n{p.mesh.plain()}\n{p.efo.plain()}\n{p.go.plain()}\n\n"
        f"{p.abstract.plain()}\n\n"
        f"{p.fulltext.plain()}"
    )


def publication_parts_text(pub: Publication, parts: Sequence[PartName], plain: bool = False) -> str:
    """Only the ``--out-part`` parts, in the fixed part order, separated by blank lines.

    Plain and only IDs gives one ``pmid<TAB>pmcid<TAB>doi`` line (unselected IDs left empty), the form that
    ``-pub-file`` reads back.
    """
    chosen = in_order(parts)
    if not plain:
        return "\n\n".join(part_text(pub.part(n)) for n in chosen)
    id_parts = (PartName.pmid, PartName.pmcid, PartName.doi)
    pmid, pmcid, doi = (pub.part(n).plain() if n in chosen else "" for n in id_parts)
    if is_id_only(chosen):
        return ids_text(pmid, pmcid, doi, tab=True)
    pieces = [ids_text(pmid, pmcid, doi)] if any(n.is_id for n in chosen) else []
    pieces += [pub.part(n).plain() for n in chosen if not n.is_id]
    return "\n\n".join(pieces)


def webpage_text(page: Webpage) -> str:
    w = page
    return (
        f"{state_text(w.state)}\n\n"
        f"START URL: {w.start_url}\n"
        f"FINAL URL: {w.final_url}\n"
        f"CONTENT TYPE: {w.content_type}\n"
        f"STATUS CODE: {w.status_code}\n"
        f"CONTENT TIME: {instant_text(w.content_time)}\n\n"
        f"LICENSE: {w.license}\n"
        f"LANGUAGE: {w.language}\n\n"
        f"TITLE LENGTH: {len(w.title)}\n"
        f"CONTENT LENGTH: {len(w.content)}\n\n"
        f"TITLE: {w.title}\n\n"
        f"CONTENT: {w.content}"
    )


def webpage_plain_text(page: Webpage) -> str:
    return f"{page.start_url}\n\n{page.title}\n\n{page.content}"
