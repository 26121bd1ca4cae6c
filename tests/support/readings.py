"""Records compared field by field, for the tests of the parsers' two readings of a document (whole, and part by
part as it is parsed)."""

from __future__ import annotations

import dataclasses

from pubfetch.model.record import ArticleRecord


def as_read(records: list[ArticleRecord]) -> list[dict]:
    """Every field of every record, nested parts included."""
    return [dataclasses.asdict(record) for record in records]
