"""Publications as table rows, for pipelines that hand results on as a pandas DataFrame or CSV.

One row per publication, one column per part plus the authors and the journal, date, open-access and fetch facts that
a curator filters on, and the rich parts: grant IDs, update links ("RetractionIn:123"), the cited PMIDs (or DOIs),
the top-level section titles, the licence and the retraction flag. :func:`row` gives flat text (lists joined with
"; ") for CSV; :func:`to_dataframe` keeps lists as lists and times as pandas datetimes, so a frame can be filtered
without parsing strings back. It needs pandas
(``pip install pubfetch[tables]``) and says so clearly when it is missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartName
from pubfetch.model.publication import Publication
from pubfetch.model.timefmt import date_human

if TYPE_CHECKING:  # pragma: no cover
    import pandas

LIST_SEPARATOR = "; "

COLUMNS = ("pmid", "pmcid", "doi", "title", "authors", "keywords", "mesh", "efo", "go", "abstract", "fulltext",
           "journal_title", "pub_date", "oa", "preprint", "citations_count", "status", "fetch_exception",
           "fetch_time", "retracted", "license", "funding", "updates", "references", "sections", "relations")


def _part_value(pub: Publication, name: PartName) -> str | list[str]:
    part = pub.part(name)
    if name.is_list:
        return [str(item) for item in part.items]  # type: ignore[union-attr]
    return part.content  # type: ignore[union-attr]


def record(pub: Publication, args: FetcherArgs | None = None) -> dict[str, Any]:
    """One publication as a dict with the keys of :data:`COLUMNS`: lists as lists (terms, author names), dates as
    epoch milliseconds (``None`` when unknown)."""
    values: dict[str, Any] = {name.value: _part_value(pub, name) for name in PartName}
    values.update(_facts(pub, args or FetcherArgs()))
    values.update(_rich_parts(pub))
    return {column: values[column] for column in COLUMNS}


def _facts(pub: Publication, args: FetcherArgs) -> dict[str, Any]:
    """The journal, date, open-access and fetch facts a curator filters on."""
    return {
        "authors": [a.full_name for a in pub.authors],
        "journal_title": pub.journal_title,
        "pub_date": pub.pub_date if pub.pub_date >= 0 else None,
        "oa": pub.oa,
        "preprint": pub.preprint,
        "citations_count": pub.citations_count if pub.citations_count >= 0 else None,
        "status": pub.status(args),
        "fetch_exception": pub.state.fetch_exception,
        "fetch_time": pub.state.fetch_time or None,
        "retracted": pub.retracted,
        "license": pub.license.content,
    }


def _rich_parts(pub: Publication) -> dict[str, list[str]]:
    """The rich parts as lists of short strings: grants, update links, cited IDs, top-level sections, relations."""
    return {
        "funding": [" ".join(x for x in (g.agency, g.grant_id) if x) for g in pub.funding.items],
        "updates": [f"{u.type}:{u.pmid or u.doi}" for u in pub.updates.items],
        "references": [r.pmid or r.doi or r.pmcid or r.title or r.text for r in pub.references.items],
        "sections": [s.title for s in pub.sections.items if s.level == 1],
        "relations": [f"{r.type}:{r.doi}" for r in pub.relations.items],
    }


def row(pub: Publication, args: FetcherArgs | None = None) -> dict[str, Any]:
    """One publication as a flat dict with the keys of :data:`COLUMNS` (lists joined with "; ", the publication
    date as YYYY-MM-DD), for CSV."""
    values = record(pub, args)
    for column, value in values.items():
        if isinstance(value, list):
            values[column] = LIST_SEPARATOR.join(value)
    values["pub_date"] = date_human(pub.pub_date) if pub.pub_date >= 0 else ""
    values["fetch_time"] = pub.state.fetch_time
    return values


def rows(pubs: Iterable[Publication], args: FetcherArgs | None = None) -> Iterator[dict[str, Any]]:
    for pub in pubs:
        yield row(pub, args)


def to_dataframe(pubs: Iterable[Publication], args: FetcherArgs | None = None) -> pandas.DataFrame:
    """A DataFrame with one row per publication (columns: :data:`COLUMNS`): list parts and authors as lists of
    strings, ``pub_date`` and ``fetch_time`` as UTC datetimes (NaT when unknown)."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_dataframe needs pandas: pip install 'pubfetch[tables]' (or pip install pandas)") from None
    frame = pandas.DataFrame([record(pub, args) for pub in pubs], columns=list(COLUMNS))
    for column in ("pub_date", "fetch_time"):
        frame[column] = pandas.to_datetime(frame[column], unit="ms", utc=True)
    frame["citations_count"] = frame["citations_count"].astype("Int64")
    return frame
