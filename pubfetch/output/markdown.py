"""Publications and webpages as Markdown (``--format markdown``), for language-model and retrieval pipelines that read
a paper as headed text with its tables as tables.

A publication reads: its title as the one level-1 heading; a metadata block (IDs, journal, date, authors, keywords);
the abstract; the full text by its sections (each heading one level below its parent, level 6 at most; without
sections, the flat full text), each table placed after the text of the section it sits in (those kept apart from the
body after the last section) and the flattened tables and figures of the section's text left out; then figures
(caption and image link), supplementary files, statements and references.

Tables are GitHub-flavoured: one header row, so a table's header rows are flattened column by column, the texts down
a column joined with " / " after dropping a text equal to the one above it (the repeats of a spanned cell): the rows
"PSMs, PSMs" over "Target, Decoy" give "PSMs / Target | PSMs / Decoy". A table without header rows gets an empty
header row. In a cell, "|" and "\\" are escaped and a line break becomes ``<br>``. Text that Markdown would read as
markup at a line start (a heading, list or quote marker) or as an HTML tag is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pubfetch.model.publication import Publication
from pubfetch.model.rich import Reference, Section
from pubfetch.model.structure import Figure, Statement, Supplement, Table
from pubfetch.model.timefmt import date_human
from pubfetch.model.webpage import Webpage
from pubfetch.output.text import authors_text

__all__ = ["SEPARATOR", "flat_header", "publication_markdown", "table_markdown", "webpage_markdown"]

#: Between two entries of one output (a thematic break, blank lines around it so that it is never a heading's line)
SEPARATOR = "\n---\n"

STATEMENT_LABELS = {"data_availability": "Data availability", "code_availability": "Code availability",
                    "competing_interests": "Competing interests", "author_contributions": "Author contributions",
                    "funding": "Funding", "ethics": "Ethics", "acknowledgements": "Acknowledgements"}

_BLOCK_START = re.compile(r"^(\s{0,3})([#>+=*-]|\d{1,9}[.)](?=\s|$))", re.M)
_TAG = re.compile(r"<(?=[A-Za-z/!?])")


def escape_text(text: str) -> str:
    """Text as Markdown reads it literally: a line start that would open a block, and what would open an HTML tag,
    escaped; backslashes and emphasis marks inside a line are left (they rarely change what a reader sees)."""
    text = _TAG.sub(r"\\<", text)
    return _BLOCK_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "\n").replace("\n", "<br>").strip()


def flat_header(header: list[list[str]], width: int) -> list[str]:
    """One header row from several (the module's rule)."""
    out = []
    for col in range(width):
        words: list[str] = []
        for row in header:
            value = row[col] if col < len(row) else ""
            if value and (not words or words[-1] != value):
                words.append(value)
        out.append(" / ".join(words))
    return out


def table_markdown(table: Table) -> str:
    """A table: its label and caption in bold and plain, the GFM table, then its footnotes."""
    lines = []
    title = " ".join(p for p in (f"**{escape_text(table.label)}**" if table.label else "", escape_text(table.caption))
                     if p)
    if title:
        lines += [title, ""]
    width = table.width
    if width:
        lines.append("| " + " | ".join(_cell(c) for c in flat_header(table.header, width)) + " |")
        lines.append("|" + "---|" * width)
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows]
        lines.append("")
    lines += [escape_text(note) + "\n" for note in table.footnotes]
    return "\n".join(lines).strip() + "\n"


def _figure(figure: Figure) -> str:
    label = f"**{escape_text(figure.label)}** " if figure.label else ""
    image = f"\n\n![{escape_text(figure.label or 'figure')}](<{figure.url}>)" if figure.url else ""
    return f"{label}{escape_text(figure.caption)}{image}".strip() + "\n"


def _size(size: int) -> str:
    """A size in bytes as people read it ("12 bytes", "1.5 kB", "3.2 MB"); "" when unknown (-1)."""
    if size < 0:
        return ""
    if size < 1024:
        return f"{size} bytes"
    return f"{size / 1024:.1f} kB" if size < 1024 ** 2 else f"{size / 1024 ** 2:.1f} MB"


def _supplement(item: Supplement) -> str:
    name = escape_text(item.label or item.file_name or "file")
    link = f"[{name}](<{item.url}>)" if item.url else name
    facts = ", ".join(p for p in (item.media_type, _size(item.size)) if p)
    return f"- {link}" + (f" ({facts})" if facts else "") + (f": {escape_text(item.caption)}" if item.caption else "")


def _statement(item: Statement) -> str:
    label = STATEMENT_LABELS.get(item.type, item.type)
    heading = f"### {label}" + (f" ({escape_text(item.title)})" if item.title and item.title != label else "")
    return f"{heading}\n\n{escape_text(item.text)}\n"


def _reference(index: int, ref: Reference) -> str:
    ids = ", ".join(f"{name} {value}" for name, value in (("PMID", ref.pmid), ("PMCID", ref.pmcid), ("DOI", ref.doi))
                    if value)
    return f"{index}. {escape_text(ref.text or ref.title)}" + (f" ({ids})" if ids else "")


def _metadata(pub: Publication) -> list[str]:
    pairs = [("PMID", pub.pmid.content), ("PMCID", pub.pmcid.content), ("DOI", pub.doi.content),
             ("Journal", pub.journal_title), ("Published", date_human(pub.pub_date) if pub.pub_date >= 0 else ""),
             ("Authors", authors_text(pub.authors)), ("Keywords", "; ".join(map(str, pub.keywords.items))),
             ("License", pub.license.content)]
    return [f"- **{k}:** {escape_text(v)}" for k, v in pairs if v]


def _paragraphs(text: str, floats: tuple[str, ...] = ()) -> str:
    """The paragraphs of a text, those that are a table or figure flattened (they open with its label and caption,
    as the flat text writes them) left out: they are written as tables and figures."""
    return "\n\n".join(escape_text(p.strip()) for p in text.split("\n\n")
                        if p.strip() and not (floats and p.strip().startswith(floats)))


def _opening(item: Table | Figure) -> str:
    return " ".join(p for p in (item.label, item.caption) if p)


def _body(pub: Publication) -> list[str]:
    """The sections with each table after the text of the section it sits in; tables no section holds last."""
    sections: list[Section] = pub.sections.items
    tables: list[Table] = list(pub.tables.items)
    out: list[str] = []
    if not sections and pub.fulltext.content:
        text = pub.fulltext.content
        for known in (pub.title.content, pub.abstract.content):  # the flat full text opens with them
            if known and text.startswith(known):
                text = text[len(known):].lstrip("\n")
        out += ["## Full text", _paragraphs(text)]
    floats = tuple(o for o in map(_opening, [*tables, *pub.figures.items]) if o)
    path: list[str] = []
    for section in sections:
        path = [*path[:section.level - 1], section.title]
        path += [""] * (section.level - len(path))
        level = min(section.level + 1, 6)
        out.append("#" * level + " " + (escape_text(section.title) or "(untitled)"))
        if section.text:
            out.append(_paragraphs(section.text, floats))
        here = [t for t in tables if t.section_path == path]
        out += [table_markdown(t) for t in here]
        tables = [t for t in tables if t not in here]
    if tables:
        out.append("## Tables")
        out += [table_markdown(t) for t in tables]
    return out


def _listed(heading: str, items: Iterable[str]) -> list[str]:
    """A level-2 heading over a list, one item a line; nothing when the list is empty."""
    lines = list(items)
    return [f"## {heading}", "\n".join(lines)] if lines else []


def publication_markdown(pub: Publication) -> str:
    """A publication as one Markdown document (the module's layout)."""
    out = [f"# {escape_text(pub.title.content) or '(untitled)'}"]
    if pub.retracted:
        out.append("> **Retracted:** this paper was retracted.")
    meta = _metadata(pub)
    if meta:
        out.append("\n".join(meta))
    if pub.abstract.content:
        out += ["## Abstract", _paragraphs(pub.abstract.content)]
    out += _body(pub)
    if pub.figures.items:
        out += ["## Figures", *(_figure(f) for f in pub.figures.items)]
    out += _listed("Supplementary material", (_supplement(s) for s in pub.supplements.items))
    if pub.statements.items:
        out += ["## Statements", *(_statement(s) for s in pub.statements.items)]
    out += _listed("References", (_reference(i, r) for i, r in enumerate(pub.references.items, start=1)))
    return "\n\n".join(p.strip("\n") for p in out if p.strip()) + "\n"


def webpage_markdown(page: Webpage) -> str:
    """A webpage or doc: its title as the heading, its URL, and its text."""
    lines = [f"# {escape_text(page.title) or '(untitled)'}", f"<{page.final_url or page.start_url}>"]
    if page.content:
        lines.append(_paragraphs(page.content))
    return "\n\n".join(lines) + "\n"
