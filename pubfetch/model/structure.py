"""The structure of a full text beyond its flat text: tables as data, figures, supplementary files and the typed
statements (data availability, competing interests, ...), as items of the rich parts ``tables``, ``figures``,
``supplements`` and ``statements`` (:mod:`pubfetch.model.rich` keeps them with provenance and the overwrite rule).

A table's cells are plain text laid on a grid: a cell spanning rows or columns has its text repeated in every grid
position it covers (as pandas' ``read_html`` and so pubget's CSV files give them), so that each row has one value per
column and a column can be read down without knowing the spans; every row of a table has the table's width (a short
row is filled with empty strings). Header rows (``thead``) and body rows are kept apart, each header row a row of its
own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pubfetch.config.defaults import DEFAULT_MAX_TABLE_CELLS

__all__ = ["DEFAULT_MAX_TABLE_CELLS", "STATEMENT_TYPES", "Figure", "Statement", "Supplement", "Table", "folder_name",
           "safe_file_name"]

#: Cells a table keeps at most unless the settings say otherwise (``run.max_table_cells``)

#: The kinds of statement, in the order a reader would look for them.
STATEMENT_TYPES = ("data_availability", "code_availability", "competing_interests", "author_contributions",
                   "funding", "ethics", "acknowledgements")


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_file_name(name: str) -> str:
    """A name usable as one file or folder name anywhere: runs of other characters than letters, digits, ".", "_" and
    "-" become "_", and a name of dots only (".", "..") is prefixed with "_"."""
    safe = _UNSAFE.sub("_", name).strip("_")[:200] or "_"
    return "_" + safe if set(safe) == {"."} else safe


def folder_name(pmcid: str, pmid: str, doi: str) -> str:
    """The folder a publication's files are written under (its tables, its supplements): its PMCID, else its PMID,
    else its DOI in lower case made a file name ("10.1021/pr200636x" -> "10.1021_pr200636x"); "" without IDs."""
    return safe_file_name(pmcid or pmid or doi.lower()) if pmcid or pmid or doi else ""


def _s(d: dict, key: str) -> str:
    value = d.get(key, "")
    return value if isinstance(value, str) else ""


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _rows(value: object) -> list[list[str]]:
    return [_strings(row) for row in value if isinstance(row, list)] if isinstance(value, list) else []


@dataclass(frozen=True)
class Table:
    """One table: ``id`` as the source names it, label ("Table 1"), caption (title and caption text), header rows and
    body rows of cell texts (spans resolved, see the module), footnotes, the headings of the sections it sits in
    (outermost first; empty for a table kept apart from the body), and whether rows were left out at the cells cap."""

    id: str = ""
    label: str = ""
    caption: str = ""
    header: list[list[str]] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    footnotes: list[str] = field(default_factory=list)
    section_path: list[str] = field(default_factory=list)
    truncated: bool = False

    @property
    def width(self) -> int:
        return max((len(r) for r in (*self.header, *self.rows)), default=0)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "caption": self.caption, "header": self.header,
                "rows": self.rows, "footnotes": self.footnotes, "sectionPath": self.section_path,
                "truncated": self.truncated}

    @classmethod
    def from_json(cls, d: dict) -> Table:
        return cls(_s(d, "id"), _s(d, "label"), _s(d, "caption"), _rows(d.get("header")), _rows(d.get("rows")),
                   _strings(d.get("footnotes")), _strings(d.get("sectionPath")), d.get("truncated") is True)

    def __hash__(self) -> int:
        return hash((self.id, self.label, self.caption, len(self.rows)))

    def __str__(self) -> str:
        return " ".join(p for p in (self.label, self.caption) if p) or self.id


@dataclass(frozen=True)
class Figure:
    """One figure: ``id``, label, caption and the absolute URL of its image at the service that holds it."""

    id: str = ""
    label: str = ""
    caption: str = ""
    url: str = ""

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "label": self.label, "caption": self.caption, "url": self.url}

    @classmethod
    def from_json(cls, d: dict) -> Figure:
        return cls(_s(d, "id"), _s(d, "label"), _s(d, "caption"), _s(d, "url"))

    def __str__(self) -> str:
        return " ".join(p for p in (self.label, self.caption) if p) or self.url


@dataclass(frozen=True)
class Supplement:
    """One supplementary file: ``id``, label, caption, the absolute URL of the file, its media type (as the source
    states it, else as its file name suggests; "" when neither says) and its size in bytes where the source states
    it (-1 when it does not)."""

    id: str = ""
    label: str = ""
    caption: str = ""
    url: str = ""
    media_type: str = ""
    size: int = -1

    @property
    def file_name(self) -> str:
        """The last segment of the URL's path: the name the file is saved under."""
        return self.url.split("?", 1)[0].split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "caption": self.caption, "url": self.url,
                "mediaType": self.media_type, "size": self.size}

    @classmethod
    def from_json(cls, d: dict) -> Supplement:
        size = d.get("size", -1)
        return cls(_s(d, "id"), _s(d, "label"), _s(d, "caption"), _s(d, "url"), _s(d, "mediaType"),
                   size if isinstance(size, int) and not isinstance(size, bool) else -1)

    def __str__(self) -> str:
        return " ".join(p for p in (self.label, self.caption) if p) or self.url


@dataclass(frozen=True)
class Statement:
    """One statement of the paper about itself: its type (one of :data:`STATEMENT_TYPES`), its heading as written
    and its text."""

    type: str = ""
    title: str = ""
    text: str = ""

    def to_json(self) -> dict[str, str]:
        return {"type": self.type, "title": self.title, "text": self.text}

    @classmethod
    def from_json(cls, d: dict) -> Statement:
        return cls(_s(d, "type"), _s(d, "title"), _s(d, "text"))

    def __str__(self) -> str:
        return f"{self.type}: {self.text}"
