"""A run report: one self-contained HTML page saying how complete a set of publications is and where it came from.

For a database or a run: coverage by part and part type (which parts are final, from which source), the requests,
failures and 429s per host of the run (when given), and full-text success by publisher host. The plots are drawn by
matplotlib (the optional ``report`` extra) and embedded as PNG data URLs, so the file can be mailed or archived alone.
"""

from __future__ import annotations

import base64
import html
import io
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.net.urls import hostname
from pubfetch.store import Store

#: Publisher hosts shown in the full-text plot (the most frequent).
TOP_PUBLISHERS = 15
EMPTY = "empty"


@dataclass
class Coverage:
    """What a set of publications holds: per part, how many have it from each part type, and how many are final."""

    total: int = 0
    final_publications: int = 0
    by_type: dict[PartName, Counter[str]] = field(default_factory=lambda: {name: Counter() for name in PartName})
    final: Counter[PartName] = field(default_factory=Counter)
    #: publisher host -> (publications that reached it, of which with a final full text)
    publishers: dict[str, list[int]] = field(default_factory=dict)

    def add(self, pub: Publication, args: FetcherArgs) -> None:
        self.total += 1
        self.final_publications += pub.is_final(args)
        for name in PartName:
            part = pub.part(name)
            self.by_type[name][EMPTY if part.is_empty() else part.type.value] += 1
            self.final[name] += part.is_final(args)
        host = publisher_host(pub)
        if host is not None:
            counts = self.publishers.setdefault(host, [0, 0])
            counts[0] += 1
            counts[1] += pub.fulltext.is_final(args)


def publisher_host(pub: Publication) -> str | None:
    """The host of the publisher page a publication's DOI led to (the first site visited as the DOI's page)."""
    for site in pub.visited_sites:
        if site.type is PartType.doi:
            host = hostname(site.url)
            return host.removeprefix("www.") if host else None
    return None


def coverage(pubs: Iterable[Publication], args: FetcherArgs | None = None) -> Coverage:
    args = args or FetcherArgs()
    result = Coverage()
    for pub in pubs:
        result.add(pub, args)
    return result


# ---------------------------------------------------------------------------------------------------------- plots


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise ImportError("the report's plots need matplotlib: pip install 'pubfetch[report]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    _pyplot().close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _coverage_plot(cov: Coverage) -> str:
    plt = _pyplot()
    names = [n.value.removeprefix("the").lower() for n in PartName]
    types = sorted({t for counts in cov.by_type.values() for t in counts if t != EMPTY}) + [EMPTY]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    left = [0] * len(names)
    cmap = plt.get_cmap("tab20")
    for i, type_ in enumerate(types):
        values = [cov.by_type[n][type_] for n in PartName]
        color = "#dddddd" if type_ == EMPTY else cmap(i % 20)
        ax.barh(names, values, left=left, label=type_, color=color)
        left = [a + b for a, b in zip(left, values, strict=True)]
    ax.invert_yaxis()
    ax.set_xlabel("publications")
    ax.set_title("Parts by source (part type)")
    ax.legend(fontsize="small", bbox_to_anchor=(1.01, 1), loc="upper left")
    return _png(fig)


def _hosts_plot(stats: Mapping[str, Mapping[str, int]]) -> str:
    plt = _pyplot()
    hosts = sorted(stats, key=lambda h: -stats[h].get("requests", 0))[:TOP_PUBLISHERS]
    fig, ax = plt.subplots(figsize=(9, 0.4 * len(hosts) + 1.5))
    y = range(len(hosts))
    ax.barh([i - 0.27 for i in y], [stats[h].get("requests", 0) for h in hosts], height=0.27, label="requests")
    ax.barh(list(y), [stats[h].get("failed", 0) for h in hosts], height=0.27, label="failed", color="#d62728")
    ax.barh([i + 0.27 for i in y], [stats[h].get("429", 0) for h in hosts], height=0.27, label="429", color="#ff7f0e")
    ax.set_yticks(list(y), hosts)
    ax.invert_yaxis()
    ax.set_title("Requests per host")
    ax.legend(fontsize="small")
    return _png(fig)


def _publishers_plot(cov: Coverage) -> str:
    plt = _pyplot()
    hosts = sorted(cov.publishers, key=lambda h: -cov.publishers[h][0])[:TOP_PUBLISHERS]
    fig, ax = plt.subplots(figsize=(9, 0.4 * len(hosts) + 1.5))
    reached = [cov.publishers[h][0] for h in hosts]
    final = [cov.publishers[h][1] for h in hosts]
    ax.barh(hosts, reached, color="#cccccc", label="publications reaching the host")
    ax.barh(hosts, final, color="#2ca02c", label="with a final full text")
    ax.invert_yaxis()
    ax.set_title("Full text by publisher host")
    ax.legend(fontsize="small")
    return _png(fig)


# ----------------------------------------------------------------------------------------------------------- page


def _table(head: list[str], rows: list[list[object]]) -> str:
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def _figure(png: str, alt: str) -> str:
    return f'<figure><img class="plot" alt="{html.escape(alt)}" src="data:image/png;base64,{png}"></figure>'


_STYLE = ("body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}"
          "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
          "th:first-child,td:first-child{text-align:left}img.plot{max-width:100%}")


def render(pubs: Iterable[Publication], args: FetcherArgs | None = None,
           host_stats: Mapping[str, Mapping[str, int]] | None = None, title: str = "pubfetch report") -> str:
    """The report page as a string."""
    args = args or FetcherArgs()
    cov = coverage(pubs, args)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
             f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>",
             f"<p>{cov.total} publications, {cov.final_publications} final; made {when}.</p>",
             "<h2>Coverage by part and source</h2>"]
    if cov.total:
        parts.append(_figure(_coverage_plot(cov), "coverage by part and part type"))
    types = sorted({t for counts in cov.by_type.values() for t in counts})
    parts.append(_table(["part", "final", *types],
                        [[n.value, cov.final[n], *(cov.by_type[n][t] for t in types)] for n in PartName]))
    parts.append("<h2>Requests per host</h2>")
    if host_stats:
        parts.append(_figure(_hosts_plot(host_stats), "requests, failures and 429s per host"))
        parts.append(_table(["host", "requests", "failed", "429", "503"],
                            [[h, s.get("requests", 0), s.get("failed", 0), s.get("429", 0), s.get("503", 0)]
                             for h, s in sorted(host_stats.items(), key=lambda kv: -kv[1].get("requests", 0))]))
    else:
        parts.append("<p>No requests in this report (made from stored publications, not from a run).</p>")
    parts.append("<h2>Full text by publisher host</h2>")
    if cov.publishers:
        parts.append(_figure(_publishers_plot(cov), "full-text success by publisher host"))
        parts.append(_table(["publisher host", "publications", "final full text"],
                            [[h, r, f] for h, (r, f) in sorted(cov.publishers.items(), key=lambda kv: -kv[1][0])]))
    else:
        parts.append("<p>No publisher page was visited.</p>")
    parts.append("</body></html>\n")
    return "".join(parts)


def report(source: str | os.PathLike[str] | Store | Iterable[Publication], path: str | os.PathLike[str], *,
           args: FetcherArgs | None = None, host_stats: Mapping[str, Mapping[str, int]] | None = None,
           title: str = "pubfetch report") -> str:
    """Write the report of a database (a path, URL or open store) or of publications to ``path``; returns the path.

    ``host_stats`` (per host: ``requests``, ``failed``, ``429``, ``503``) adds the requests of a run; the command
    line's ``-report FILE`` passes those of its own run.
    """
    if isinstance(source, Store):
        page = render((p for i in source.publication_ids() if (p := source.get_publication(i)) is not None), args,
                      host_stats, title)
    elif isinstance(source, str | os.PathLike):
        from pubfetch.store import open_store

        with open_store(source, readonly=True) as store:
            return report(store, path, args=args, host_stats=host_stats, title=title)
    else:
        page = render(source, args, host_stats, title)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    return os.fspath(path)
