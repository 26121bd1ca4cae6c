"""The CLI's listing and summary outputs: ID lists (``-out-ids``), counts (``-count``, ``-count-ids``), top hosts
(``-out-top-hosts``, ``-count-top-hosts``) and the part-type table (``-part-table``), in PubFetcher's formats.

Top hosts tell where content came from: for publications the hosts of the visited sites (publisher pages and links
followed, not the fixed Europe PMC/PubMed resources), for webpages and docs the host of the final URL after redirects.
Hosts are lower-cased without ``www.`` and sorted by count, ties in first-seen order.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal, TextIO
from urllib.parse import urlsplit

from pubfetch.ids import PublicationIds
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.model.webpage import Webpage
from pubfetch.output import html as h
from pubfetch.output import text as t
from pubfetch.output.common import KINDS, Format, Kind, as_format, version_info
from pubfetch.output.jsonform import dumps, ids_json

CountWhat = Literal["entries", "ids", "top_hosts"]

COUNT_LABELS: dict[str, tuple[str, str, str]] = {
    "entries": ("Publications", "Webpages    ", "Docs        "),
    "ids": ("Publication IDs", "Webpage URLs   ", "Doc URLs       "),
    "top_hosts": ("Publications top hosts", "Webpages top hosts    ", "Docs top hosts        "),
}
"""PubFetcher's labels, padded so that the counts line up."""


def _sections(values: Sequence[object | None], omit_empty: bool) -> list[tuple[Kind, object]]:
    """(kind, value) for the kinds to write: given (not None) and, with omit_empty, not empty."""
    return [(k, v) for k, v in zip(KINDS, values, strict=True)
            if v is not None and (not omit_empty or len(v))]  # type: ignore[arg-type]


def _finish(out: TextIO, fmt: Format, body: list[str], doc: dict | None, html_document: bool) -> None:
    if fmt.is_json:
        out.write(dumps(doc) + "\n")
    elif fmt is Format.html and html_document:
        out.write(h.html_document_start() + "".join(body) + h.HTML_DOCUMENT_END)
    else:
        out.write("".join(body))


# --- IDs ------------------------------------------------------------------------------------------------------------


def write_ids(out: TextIO, publication_ids: Sequence[PublicationIds] | None = None,
              webpage_urls: Sequence[str] | None = None, doc_urls: Sequence[str] | None = None, *,
              fmt: Format | str = Format.text, plain: bool = False, argv: Sequence[str] = (), omit_empty: bool = True,
              html_document: bool = True, version: str | None = None) -> None:
    """ID and URL lists. Text: ``pmid<TAB>pmcid<TAB>doi`` lines with ``plain`` (the ``-pub-file`` format), else
    ``[ids] (urls)``; URLs one per line. JSON: ``publicationIds``, ``webpageUrls``, ``docUrls`` arrays."""
    fmt = as_format(fmt)
    body: list[str] = []
    doc: dict = {"version": version_info(version), "argv": list(argv)}
    for kind, values in _sections((publication_ids, webpage_urls, doc_urls), omit_empty):
        if kind == "publication":
            pub_ids: Sequence[PublicationIds] = values  # type: ignore[assignment]
            if fmt.is_json:
                doc["publicationIds"] = [ids_json(i, plain) for i in pub_ids]
            else:
                body += _publication_id_lines(pub_ids, fmt, plain)
        else:
            urls: Sequence[str] = values  # type: ignore[assignment]
            if fmt.is_json:
                doc[f"{kind}Urls"] = list(urls)
            else:
                body += _url_lines(urls, fmt)
    _finish(out, fmt, body, doc, html_document)


def _publication_id_lines(pub_ids: Sequence[PublicationIds], fmt: Format, plain: bool) -> list[str]:
    """The lines of an ID list in JSON Lines, text, Markdown or HTML (JSON gathers one document instead)."""
    if fmt.is_jsonl:
        return [dumps(ids_json(i, plain), pretty=False) + "\n" for i in pub_ids]
    if fmt in (Format.text, Format.markdown):  # Markdown: the text lines as a list
        bullet = "- " if fmt is Format.markdown else ""
        return [bullet + (t.ids_text(*i.ids, tab=True) if plain else t.ids_with_urls_text(
            *i.ids, i.pmid_url, i.pmcid_url, i.doi_url)) + "\n" for i in pub_ids]
    rows = [h.ids_html(*i.ids, tab=True) if plain else
            "<li>" + h.ids_with_urls_html(*i.ids, i.pmid_url, i.pmcid_url, i.doi_url) + "</li>"
            for i in pub_ids]
    return ['<table border="1">\n' if plain else "<ul>\n", *(r + "\n" for r in rows),
            "</table>\n" if plain else "</ul>\n"]


def _url_lines(urls: Sequence[str], fmt: Format) -> list[str]:
    """The lines of a URL list in JSON Lines, text, Markdown or HTML (JSON gathers one document instead)."""
    if fmt.is_jsonl:
        return [dumps(u, pretty=False) + "\n" for u in urls]
    if fmt is Format.text:
        return [u + "\n" for u in urls]
    if fmt is Format.markdown:
        return [f"- <{u}>\n" for u in urls]
    return ["<ul>\n", *(f"<li>{h.link_html(u)}</li>\n" for u in urls), "</ul>\n"]


def format_ids(publication_ids: Sequence[PublicationIds] | None = None, webpage_urls: Sequence[str] | None = None,
               doc_urls: Sequence[str] | None = None, **options: object) -> str:
    buf = io.StringIO()
    write_ids(buf, publication_ids, webpage_urls, doc_urls, **options)  # type: ignore[arg-type]
    return buf.getvalue()


# --- counts ---------------------------------------------------------------------------------------------------------


def format_counts(publications: int | None = None, webpages: int | None = None, docs: int | None = None,
                  what: CountWhat = "entries") -> str:
    """``Publications : 12`` lines; PubFetcher prints a kind only when IDs of that kind were given, so pass None
    for the others."""
    labels = COUNT_LABELS[what]
    return "".join(f"{label} : {n}\n" for label, n in zip(labels, (publications, webpages, docs), strict=True)
                   if n is not None)


# --- top hosts ------------------------------------------------------------------------------------------------------


def url_host(url: str) -> str:
    """Lower-cased host without ``www.``; empty for a URL without a host."""
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    return host.removeprefix("www.")


def top_hosts(entries: Iterable[Publication | Webpage], keep: Callable[[str], bool] | None = None) -> dict[str, int]:
    """Hosts of visited sites (publications) or final URLs (webpages, docs) with counts, most frequent first.

    ``keep`` filters URLs before counting: the CLI passes "has scraping rules" for ``-has-scrape`` (or its negation).
    """
    counts: dict[str, int] = {}
    for entry in entries:
        if isinstance(entry, Publication):
            urls = [s.url for s in entry.visited_sites]
        else:
            urls = [entry.final_url] if entry.final_url else []
        for url in urls:
            if keep is not None and not keep(url):
                continue
            host = url_host(url)
            if host:
                counts[host] = counts.get(host, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def write_top_hosts(out: TextIO, publications: Mapping[str, int] | None = None,
                    webpages: Mapping[str, int] | None = None, docs: Mapping[str, int] | None = None, *,
                    fmt: Format | str = Format.text, argv: Sequence[str] = (), omit_empty: bool = True,
                    html_document: bool = True, version: str | None = None) -> None:
    """Text ``host<TAB>count`` lines; Markdown ``- host: count`` items; HTML ``<li value="count">``; JSON
    ``<kind>TopHosts`` arrays of {count, host}."""
    fmt = as_format(fmt)
    body: list[str] = []
    doc: dict = {"version": version_info(version), "argv": list(argv)}
    for kind, values in _sections((publications, webpages, docs), omit_empty):
        hosts: Mapping[str, int] = values  # type: ignore[assignment]
        items = [{"count": n, "host": host} for host, n in hosts.items()]
        if fmt.is_json:
            doc[f"{kind}TopHosts"] = items
        elif fmt.is_jsonl:
            body += [dumps(i, pretty=False) + "\n" for i in items]
        elif fmt is Format.text:
            body += [f"{host}\t{n}\n" for host, n in hosts.items()]
        elif fmt is Format.markdown:
            body += [f"- {host}: {n}\n" for host, n in hosts.items()]
        else:
            body += ["<ul>\n", *(f'<li value="{n}">{h.escape_html(host)}</li>\n' for host, n in hosts.items()),
                     "</ul>\n"]
    _finish(out, fmt, body, doc, html_document)


def format_top_hosts(publications: Mapping[str, int] | None = None, webpages: Mapping[str, int] | None = None,
                     docs: Mapping[str, int] | None = None, **options: object) -> str:
    buf = io.StringIO()
    write_top_hosts(buf, publications, webpages, docs, **options)  # type: ignore[arg-type]
    return buf.getvalue()


# --- part table -----------------------------------------------------------------------------------------------------


def part_table(publications: Sequence[Publication]) -> str:
    """CSV: one row per part type, one column per part, counting publications whose part has that type.

    A quick health check of a database: many ``na`` titles point at invalid IDs, many ``webpage`` full texts at
    publishers without scraping rules. Column and row names are PubFetcher's enum names (``theAbstract``).
    """
    lines = ["type," + ",".join(n.name for n in PartName) + ",total"]
    for type_ in PartType:
        counts = [sum(1 for p in publications if p.part(n).type is type_) for n in PartName]
        lines.append(f"{type_.name}," + ",".join(map(str, counts)) + f",{sum(counts)}")
    return "\n".join(lines) + "\n"
