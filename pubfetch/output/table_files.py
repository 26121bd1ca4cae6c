"""``-out-tables DIR``: each table of each publication as a CSV file and a JSON file of what the CSV cannot hold, as
pubget lays them out, under ``DIR/<id>/`` (the publication's PMCID, else PMID, else DOI:
:func:`~pubfetch.model.structure.folder_name`).

``table_000.csv`` holds the header rows, then the body rows, every row the table's width (spans resolved as the part
holds them); ``table_000_info.json`` holds pubget's fields (``pmcid``, ``table_id``, ``table_label``,
``table_caption``, ``table_foot`` (the footnotes joined by newlines), ``n_header_rows``, ``table_data_file``) and the
part's own (``pmid``, ``doi``, ``header``, ``footnotes``, ``section_path``, ``truncated``), so that the CSV read back
with the header rows split off gives the part's ``header`` and ``rows`` again.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from pubfetch.model.publication import Publication
from pubfetch.model.structure import Table, folder_name
from pubfetch.outfiles import write_output_file

__all__ = ["FileWriter", "table_info", "write_publication_tables", "write_tables"]

#: How a file is written: its path and what writes its text (the command line's writes it atomically)
FileWriter = Callable[[str, Callable[[TextIO], None]], None]


def _write(path: str, write: Callable[[TextIO], None]) -> None:
    write_output_file(path, write, newline="")


def table_info(pub: Publication, table: Table, data_file: str) -> dict[str, object]:
    """The JSON beside a table's CSV file."""
    return {"pmcid": pub.pmcid.content, "pmid": pub.pmid.content, "doi": pub.doi.content, "table_id": table.id,
            "table_label": table.label, "table_caption": table.caption, "table_foot": "\n".join(table.footnotes),
            "n_header_rows": len(table.header), "table_data_file": data_file, "header": table.header,
            "footnotes": table.footnotes, "section_path": table.section_path, "truncated": table.truncated}


def _rows_writer(rows: list[list[str]]) -> Callable[[TextIO], None]:
    def write(f: TextIO) -> None:
        csv.writer(f).writerows(rows)
    return write


def _text_writer(text: str) -> Callable[[TextIO], None]:
    def write(f: TextIO) -> None:
        f.write(text)
    return write


def write_publication_tables(directory: Path, pub: Publication, write: FileWriter = _write) -> list[Path]:
    """Write one publication's tables under ``directory/<id>/``; the CSV files written (none for a publication
    without tables or IDs)."""
    name = folder_name(pub.pmcid.content, pub.pmid.content, pub.doi.content)
    if not name or not pub.tables.items:
        return []
    folder = directory / name
    written = []
    for index, table in enumerate(pub.tables.items):
        data = folder / f"table_{index:03d}.csv"
        write(str(data), _rows_writer([*table.header, *table.rows]))
        text = json.dumps(table_info(pub, table, data.name), indent=2, ensure_ascii=False) + "\n"
        write(str(folder / f"table_{index:03d}_info.json"), _text_writer(text))
        written.append(data)
    return written


def write_tables(directory: str | Path, publications: Iterable[Publication], write: FileWriter = _write) -> int:
    """Write every publication's tables under ``directory`` (each file by ``write``); how many tables were
    written."""
    return sum(len(write_publication_tables(Path(directory), pub, write)) for pub in publications)
