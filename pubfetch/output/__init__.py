"""Writers of entries, ID lists, counts and top hosts in text, HTML, JSON, JSON Lines, Markdown and metadata records,
with PubFetcher's field names, and of tables as CSV files; the run report is :func:`pubfetch.report`.

The names below are imported on first use, so that a caller writing JSON does not load the HTML or plotting code.
"""

import typing as _typing

from pubfetch.lazy import lazy_names as _lazy_names

_LAZY = {
    "write_entries": "pubfetch.output.writer",
    "format_entries": "pubfetch.output.writer",
    "jsonl_line": "pubfetch.output.writer",
    "EntryWriter": "pubfetch.output.writer",
    "write_ids": "pubfetch.output.summary",
    "format_ids": "pubfetch.output.summary",
    "format_counts": "pubfetch.output.summary",
    "top_hosts": "pubfetch.output.summary",
    "write_top_hosts": "pubfetch.output.summary",
    "format_top_hosts": "pubfetch.output.summary",
    "publication_markdown": "pubfetch.output.markdown",
    "write_tables": "pubfetch.output.table_files",
}

__all__ = [*_LAZY]  # noqa: PLE0604 - the lazy table is the one list of public names

if _typing.TYPE_CHECKING:  # pragma: no cover - what type checkers read instead (``as``: re-exported)
    from pubfetch.output.markdown import publication_markdown as publication_markdown
    from pubfetch.output.summary import format_counts as format_counts
    from pubfetch.output.summary import format_ids as format_ids
    from pubfetch.output.summary import format_top_hosts as format_top_hosts
    from pubfetch.output.summary import top_hosts as top_hosts
    from pubfetch.output.summary import write_ids as write_ids
    from pubfetch.output.summary import write_top_hosts as write_top_hosts
    from pubfetch.output.table_files import write_tables as write_tables
    from pubfetch.output.writer import EntryWriter as EntryWriter
    from pubfetch.output.writer import format_entries as format_entries
    from pubfetch.output.writer import jsonl_line as jsonl_line
    from pubfetch.output.writer import write_entries as write_entries


def __getattr__(name: str) -> object:
    return _lazy(name)


_lazy = _lazy_names(__name__, _LAZY)
