"""The report page: tables and embedded plots of a :class:`~pubfetch.output.report_data.ReportData`, as one HTML file.

Every value that came from a database or a server (titles, IDs, host names) is escaped, and the page's
Content-Security-Policy allows nothing but its own inline style and ``data:`` images: it loads no external resource
and runs no script even if some text slipped through unescaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from pubfetch._version import __version__
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.rich import RichName
from pubfetch.output.common import PART_LABELS, type_label
from pubfetch.output.report_data import ReportData
from pubfetch.output.report_flow import flow_plot, flow_rows
from pubfetch.output.report_plots import plots
from pubfetch.output.rich import part_label
from pubfetch.textutil import counted

#: Rows of the per-host tables; the rest are summed in one line.
MAX_ROWS = 50

_STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; } th { background: #f2f2f2; text-align: left; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
tfoot td { font-weight: bold; } img { max-width: 100%; display: block; margin: 0.8em 0; }
p.note { color: #555; font-size: 0.9em; }
"""
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def render_page(data: ReportData) -> str:
    images = plots(data)
    if data.summary is not None and data.publications:  # drawn where the other plots are (a page of none needs none)
        images["flow"] = flow_plot(data.summary)
    sections = [_overview(data), _run(data), _flow(data, images), _coverage(data, images), _sources(data, images),
                _requests(data, images), _publishers(data, images), _not_final(data), _rejected(data)]
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">\n"
            f"<title>{escape(data.title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
            + "".join(sections) + "</body>\n</html>\n")


# --- pieces --------------------------------------------------------------------------------------------------------


def _table(table_id: str, header: Sequence[str], rows: Iterable[Sequence[object]],
           foot: Sequence[object] | None = None) -> str:
    """A table; numbers are right-aligned, everything else escaped text."""
    def cells(values: Sequence[object], tag: str) -> str:
        return "".join(f'<{tag} class="n">{v}</{tag}>' if isinstance(v, int | float) and not isinstance(v, bool)
                       else f"<{tag}>{escape(str(v))}</{tag}>" for v in values)

    head = "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr>"
    body = "".join(f"<tr>{cells(r, 'td')}</tr>\n" for r in rows)
    tail = f"<tfoot><tr>{cells(foot, 'td')}</tr></tfoot>" if foot is not None else ""
    return f'<table id="{table_id}">\n<thead>{head}</thead>\n<tbody>\n{body}</tbody>{tail}</table>\n'


def _image(images: dict[str, str], name: str, alt: str) -> str:
    uri = images.get(name)
    return f'<img id="plot-{name}" class="plot" src="{uri}" alt="{escape(alt)}">\n' if uri else ""


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def _note(text: str) -> str:
    return f'<p class="note">{escape(text)}</p>\n'


# --- sections ------------------------------------------------------------------------------------------------------


def _overview(data: ReportData) -> str:
    when = data.generated.strftime("%Y-%m-%d %H:%M UTC")
    n = data.publications
    counted = f"{n} publication{'' if n == 1 else 's'}, {data.final} final ({_percent(data.final, n)})"
    return (f"<h1>{escape(data.title)}</h1>\n<p id=\"overview\">On {escape(data.source)}: {counted}; made {when} by "
            f"pubfetch {escape(__version__)}.</p>\n")


def _run(data: ReportData) -> str:
    s = data.summary
    if s is None:
        return ""
    rows = [("publications", s.total), ("fetched", s.fetched), ("skipped (complete or not yet eligible)", s.skipped),
            ("final", s.final), ("partial", s.partial), ("failed", s.failed),
            ("pages and PDFs rejected as another paper's", s.rejected_sites),
            ("reached the retry limit", s.retry_limited),
            ("final with a failed request, fetched again by later runs", s.final_retried)]
    return "<h2>The run</h2>\n" + _table("run", ("", "count"), rows)


def _flow(data: ReportData, images: dict[str, str]) -> str:
    s = data.summary
    if s is None:
        return ""
    return ("<h2>From identification to full text</h2>\n"
            + _note("The counts a systematic review reports: one row per box of a PRISMA flow diagram.")
            + _table("flow", ("stage", "", "count"), flow_rows(s)) + _image(images, "flow", "the flow as bars"))


def _coverage(data: ReportData, images: dict[str, str]) -> str:
    n = data.publications
    rows = [(part_label(c.part), c.final, c.partial, c.missing, _percent(c.final, n)) for c in data.parts]
    return ("<h2>Coverage by part</h2>\n"
            + _note("Final: from a final source (Europe PMC, PubMed, PMC, the article's own pages) and usable; "
                    "partial: usable but from a lesser source (meta tags, PDFs, whole pages); missing: empty or "
                    "too short to be usable.")
            + _table("coverage", ("part", "final", "partial", "missing", "final share"), rows)
            + _image(images, "coverage", "parts final, partial and missing"))


def _sources(data: ReportData, images: dict[str, str]) -> str:
    present = sorted({t for c in data.parts if isinstance(c.part, PartName) for t in c.types}, key=lambda t: t.order)
    if not present:
        return ""
    by_part: dict[PartName | RichName, dict[PartType, int]] = {c.part: dict(c.types) for c in data.parts}
    rows = [(type_label(t), "yes" if t.is_final else "no", *(by_part[p].get(t, 0) for p in PartName),
             sum(by_part[p].get(t, 0) for p in PartName)) for t in present]
    return ("<h2>Coverage by part type (source)</h2>\n"
            + _note("Non-empty parts by the type of the source they were read from; final types are the ones a "
                    "later fetch does not replace.")
            + _table("sources", ("part type", "final", *(PART_LABELS[p] for p in PartName), "total"), rows)
            + _image(images, "sources", "sources of the parts"))


def _requests(data: ReportData, images: dict[str, str]) -> str:
    head = "<h2>Requests per host</h2>\n"
    if data.requests is None:
        return head + _note("No requests were counted: this report is on stored publications, not on a run.")
    hosts = list(data.requests.items())
    rows = [(h, c.requests, c.failed, c.too_many, c.unavailable, c.no_answer, _percent(c.failed, c.requests))
            for h, c in hosts[:MAX_ROWS]]
    total = [sum(getattr(c, f) for _, c in hosts) for f in ("requests", "failed", "too_many", "unavailable",
                                                            "no_answer")]
    hidden = len(hosts) - MAX_ROWS
    verb = "is" if hidden == 1 else "are"
    more = _note(f"{counted(hidden, 'more host')} {verb} in the totals.") if hidden > 0 else ""
    return (head + _note("Every attempt sent counts: redirect hops and retries too. Failed: an HTTP error status "
                         "(429 and 503 included), no answer, or an answer that could not be read.")
            + _table("requests", ("host", "requests", "failed", "HTTP 429", "HTTP 503", "no answer", "failed share"),
                     rows, (f"all {len(hosts)} hosts", *total, _percent(total[1], total[0])))
            + more + _image(images, "requests", "requests per host"))


def _publishers(data: ReportData, images: dict[str, str]) -> str:
    head = "<h2>Full text by publisher host</h2>\n"
    if not data.publishers:
        return head + _note("No publisher page was read for these publications.")
    rows = [(r.host, r.publications, r.fulltext_here, r.fulltext_elsewhere, r.no_fulltext, _percent(
        r.fulltext_here, r.publications)) for r in data.publishers[:MAX_ROWS]]
    more = (_note(f"{counted(len(data.publishers) - MAX_ROWS, 'more host')} not listed.")
            if len(data.publishers) > MAX_ROWS else "")
    return (head + _note("Publications whose pages on a host were read (article pages and links followed), and "
                         "where their final full text came from.")
            + _table("publishers", ("host", "publications", "full text from host", "full text from elsewhere",
                                    "no final full text", "success"), rows)
            + more + _image(images, "publishers", "full text by publisher host"))


def _not_final(data: ReportData) -> str:
    if not data.not_final_total:
        return ""
    rows = [(p.ids, p.title, ", ".join(PART_LABELS[m] for m in p.missing), "yes" if p.fetch_exception else "no")
            for p in data.not_final]
    listed = (f"The first {len(rows)} of {data.not_final_total}." if data.not_final_total > len(rows)
              else f"All {data.not_final_total}.")
    return ("<h2>Publications not final</h2>\n" + _note(listed)
            + _table("not-final", ("IDs", "title", "not final", "fetch exception"), rows))


def _rejected(data: ReportData) -> str:
    if not data.rejected_total:
        return ""
    rows = [(r.ids, r.url, r.claimed, REJECTION_REASONS.get(r.reason, r.reason)) for r in data.rejected]
    listed = (f"The first {len(rows)} of {data.rejected_total}." if data.rejected_total > len(rows)
              else f"All {data.rejected_total}.")
    return ("<h2>Pages and PDFs rejected as another paper's</h2>\n"
            + _note("Not merged into the publication: the page or PDF carried another paper's identifier, or no "
                    "identifier and another title, or it is the preprint of a published paper (a relation "
                    "candidate). " + listed)
            + _table("rejected", ("IDs", "URL", "claimed", "reason"), rows))


#: What each reason of a rejected site means, in the report's words.
REJECTION_REASONS = {"id": "another paper's identifier", "title": "no identifier, another title",
                     "preprint": "a preprint of the paper"}
