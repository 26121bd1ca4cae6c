"""Publications as table rows, for pipelines that hand results on as a pandas DataFrame or CSV.

One row per publication, one column per part (lists joined with "; ") plus the journal, date, open-access and fetch
facts that a curator filters on. :func:`rows` needs nothing; :func:`to_dataframe` needs pandas (``pip install
pubfetch[tables]``) and says so clearly when it is missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from pubfetch.model.part_type import PartName
from pubfetch.model.publication import Publication
from pubfetch.model.timefmt import date_human
from pubfetch.fetcher_args import FetcherArgs

if TYPE_CHECKING:  # pragma: no cover
    import pandas

LIST_SEPARATOR = "; "

COLUMNS = ("pmid", "pmcid", "doi", "title", "keywords", "mesh", "efo", "go", "abstract", "fulltext",
           "journal_title", "pub_date", "oa", "preprint", "citations_count", "status", "fetch_exception",
           "fetch_time")


def _part_text(pub: Publication, name: PartName) -> str:
    part = pub.part(name)
    if name.is_list:
        return LIST_SEPARATOR.join(str(item) for item in part.items)  # type: ignore[union-attr]
    return part.content  # type: ignore[union-attr]


def row(pub: Publication, args: FetcherArgs | None = None) -> dict[str, Any]:
    """One publication as a flat dict with the keys of :data:`COLUMNS`."""
    args = args or FetcherArgs()
    values: dict[str, Any] = {name.value: _part_text(pub, name) for name in PartName}
    values.update(
        journal_title=pub.journal_title,
        pub_date=date_human(pub.pub_date) if pub.pub_date >= 0 else "",
        oa=pub.oa,
        preprint=pub.preprint,
        citations_count=pub.citations_count if pub.citations_count >= 0 else None,
        status=pub.status(args),
        fetch_exception=pub.state.fetch_exception,
        fetch_time=pub.state.fetch_time,
    )
    return {column: values[column] for column in COLUMNS}


def rows(pubs: Iterable[Publication], args: FetcherArgs | None = None) -> Iterator[dict[str, Any]]:
    for pub in pubs:
        yield row(pub, args)


def to_dataframe(pubs: Iterable[Publication], args: FetcherArgs | None = None) -> pandas.DataFrame:
    """A DataFrame with one row per publication (columns: :data:`COLUMNS`)."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_dataframe needs pandas: pip install 'pubfetch[tables]' (or pip install pandas)") from None
    return pandas.DataFrame(list(rows(pubs, args)), columns=list(COLUMNS))
