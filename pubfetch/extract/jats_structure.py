"""Tables, figures, supplementary files and statements of a JATS ``<article>``, for the structure parts
(:mod:`pubfetch.model.structure`).

* ``tables``: every ``table-wrap`` (each one of a ``table-wrap-group``): its ``label``, ``caption`` (title and
  text), the cells of its first ``table`` on a grid (:mod:`pubfetch.extract.table_grid`: ``thead`` rows are the
  header rows, ``tbody``, direct ``tr`` and ``tfoot`` rows the body), its footnotes (each ``fn`` of
  ``table-wrap-foot``, else each of its paragraphs) and the headings of the sections around it
  (:func:`section_path`; for a table kept apart from the body, in ``floats-group``, those around the first ``xref``
  citing it). A table given only as an image has no cells.
* ``figures``: every ``fig``: label, caption and its first ``graphic``'s ``xlink:href``, made absolute by
  :func:`absolute_media` once the service is known.
* ``supplements``: every ``supplementary-material`` and ``inline-supplementary-material`` with a file (its own
  ``xlink:href``, else each of its ``media``); one inside a figure, and a ``graphic``, are never supplements. The media
  type is ``mimetype``/``mime-subtype`` as written, else the one the file name's extension stands for; the size is
  the one its caption states ("(PDF, 1.2 MB)", a kB taken as 1,024 bytes). Europe PMC's ``suppdata-size`` processing
  instructions are not read: the safe XML parser drops every processing instruction.
* ``statements``: ``ack``, ``notes``, ``sec`` and ``fn`` typed by their ``sec-type``/``notes-type``/``fn-type``, else
  by their title (:func:`statement_type`), and ``funding-statement``; an untyped ``notes`` or ``fn-group`` holding
  typed ones (Springer's "Declarations") gives each of them.

Parts of ``sub-article`` and ``response`` elements belong to those. Texts are the JATS reader's
(:class:`~pubfetch.extract.jats_text.ArticleTexts`: the elements its full text walked are not walked again).
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterator

from lxml import etree

from pubfetch.extract.jats_text import ArticleTexts, ElementTexts
from pubfetch.extract.table_grid import MAX_COLSPAN, lay_out, span
from pubfetch.extract.xmlsafe import local_name
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import RichName
from pubfetch.model.structure import DEFAULT_MAX_TABLE_CELLS, Figure, Statement, Supplement, Table

__all__ = ["absolute_media", "add_structure_parts", "media_base", "section_path", "statement_type"]

XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_FOREIGN = frozenset(("sub-article", "response"))
_SECTIONS = frozenset(("sec", "app", "boxed-text"))
#: file types by extension from Python's own table only (the system's mime.types differs from machine to machine)
_MEDIA_TYPES = mimetypes.MimeTypes()
_EXTRA_TYPES = {".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation"}

# Statement types by the element's type attribute (lower-cased), then by its title.
_TYPE_WORDS: dict[str, str] = {
    "data-availability": "data_availability", "data-availability-statement": "data_availability",
    "availability": "data_availability", "data-access": "data_availability",
    "code-availability": "code_availability", "software-availability": "code_availability",
    "coi-statement": "competing_interests", "conflict": "competing_interests",
    "conflict-of-interest": "competing_interests",
    "conflicts-of-interest": "competing_interests", "competing-interests": "competing_interests",
    "coi": "competing_interests",
    "con": "author_contributions", "author-contribution": "author_contributions",
    "author-contributions": "author_contributions", "contribution": "author_contributions",
    "financial-disclosure": "funding", "funding": "funding", "funding-information": "funding",
    "funding-statement": "funding", "supported-by": "funding",
    "ethics": "ethics", "ethics-statement": "ethics", "ethics-approval": "ethics", "ethical-approval": "ethics",
    "ack": "acknowledgements", "acknowledgment": "acknowledgements", "acknowledgement": "acknowledgements",
    "acknowledgments": "acknowledgements", "acknowledgements": "acknowledgements",
}
_TITLES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(code|software)\b.*\bavailab|\bavailab\w* of (code|software)\b", re.I), "code_availability"),
    (re.compile(r"\bdata\b.*\b(availab|sharing|deposition|statement)|\bavailab\w* of (the )?data\b"
                r"|^\s*data access\s*$|\baccession (codes|numbers)\b", re.I), "data_availability"),
    (re.compile(r"\bcompeting\b|\bconflicts? of interests?\b|\bdeclaration of interests?\b"
                r"|^\s*disclosures?( statement)?\s*$|\bduality of interest", re.I), "competing_interests"),
    (re.compile(r"\bauthors?['\u2019]?s?\s+contributions?\b|^\s*contributions?\s*$|\bcontributorship\b"
                r"|\bcredit author", re.I), "author_contributions"),
    (re.compile(r"\bfunding\b|\bfinancial support\b|\bfinancial disclosures?\b|\bsources? of support\b", re.I),
     "funding"),
    (re.compile(r"\bethic|\binstitutional review board\b|\binformed consent\b|\bconsent (to|for) "
                r"(participate|publication)\b|\banimal (care|welfare|rights)\b", re.I), "ethics"),
    (re.compile(r"\backnowledge?ments?\b", re.I), "acknowledgements"),
)


def statement_type(kind: str, title: str) -> str:
    """The statement type an element's type attribute (``sec-type``, ``notes-type``, ``fn-type``) or, failing that,
    its title names; "" when neither names one."""
    found = _TYPE_WORDS.get(kind.strip().lower())
    if found:
        return found
    for pattern, name in _TITLES:
        if pattern.search(title):
            return name
    return ""


def _own(article: etree._Element, name: str) -> Iterator[etree._Element]:
    """The article's elements of that name outside its sub-articles and responses."""
    for el in article.iter("{*}" + name):
        parent = el.getparent()
        foreign = False
        while parent is not None and parent is not article:
            if local_name(parent) in _FOREIGN:
                foreign = True
                break
            parent = parent.getparent()
        if not foreign:
            yield el


def _child(el: etree._Element, name: str) -> etree._Element | None:
    return next(el.iterchildren("{*}" + name), None)


def section_path(el: etree._Element, texts: ElementTexts | None = None) -> list[str]:
    """The headings of the sections (``sec``, ``app``, ``boxed-text``) an element sits in, outermost first; a section
    without a title counts as ""."""
    texts = texts or ElementTexts()
    path: list[str] = []
    parent = el.getparent()
    while parent is not None:
        if isinstance(parent.tag, str) and local_name(parent) in _SECTIONS:
            path.append(texts.of(_child(parent, "title")))
        parent = parent.getparent()
    return path[::-1]


class _Reader:
    """The readers of one article's structure parts, taking their texts from ``texts`` (the article's)."""

    def __init__(self, texts: ElementTexts, max_cells: int, article: etree._Element) -> None:
        self._texts = texts
        self._max_cells = max_cells
        self._article = article
        self._cited: dict[str, etree._Element] | None = None

    def _first_citation(self, target: str) -> etree._Element | None:
        """The first ``xref`` of the article that cites the element of that id (asked only for floats)."""
        if self._cited is None:
            self._cited = {}
            for xref in _own(self._article, "xref"):
                for rid in (xref.get("rid") or "").split():
                    self._cited.setdefault(rid, xref)
        return self._cited.get(target)

    def _section_path(self, el: etree._Element) -> list[str]:
        """The sections the element sits in; for a float kept apart from the body, those of its first citation."""
        path = section_path(el, self._texts)
        if not path and el.get("id"):
            citation = self._first_citation(el.get("id", "").strip())
            if citation is not None:
                path = section_path(citation, self._texts)
        return path

    def _of(self, el: etree._Element | None) -> str:
        return self._texts.of(el)

    # ---------------------------------------------------------------------------------------------------------- tables

    @staticmethod
    def _grid_groups(table: etree._Element) -> list[tuple[bool, list[list[etree._Element]]]]:
        groups: list[tuple[bool, list[list[etree._Element]]]] = []
        direct: list[list[etree._Element]] = []
        for child in table:
            name = local_name(child) if isinstance(child.tag, str) else ""
            if name in ("thead", "tbody", "tfoot"):
                groups.append((name == "thead", [_cells(tr) for tr in child.iterchildren("{*}tr")]))
            elif name == "tr":
                direct.append(_cells(child))
        if direct:
            groups.append((False, direct))
        return groups

    def _footnotes(self, wrap: etree._Element) -> list[str]:
        out: list[str] = []
        for foot in wrap.iterchildren("{*}table-wrap-foot"):
            notes = list(foot.iter("{*}fn"))
            parts = notes or [c for c in foot if isinstance(c.tag, str) and local_name(c) != "title"]
            out += [t for t in map(self._of, parts) if t]
        return out

    def table(self, wrap: etree._Element) -> Table:
        table = next(wrap.iter("{*}table"), None)
        grid = lay_out(self._grid_groups(table) if table is not None else [], self._of, _spans, self._max_cells)
        return Table(id=(wrap.get("id") or "").strip(), label=self._of(_child(wrap, "label")),
                     caption=self._of(_child(wrap, "caption")), header=grid.header, rows=grid.rows,
                     footnotes=self._footnotes(wrap), section_path=self._section_path(wrap),
                     truncated=grid.truncated)

    # --------------------------------------------------------------------------------------------------------- figures

    def figure(self, fig: etree._Element) -> Figure:
        graphic = next(fig.iter("{*}graphic"), None)
        href = (graphic.get(XLINK_HREF) or "").strip() if graphic is not None else ""
        return Figure((fig.get("id") or "").strip(), self._of(_child(fig, "label")), self._of(_child(fig, "caption")),
                      href)

    # ----------------------------------------------------------------------------------------------------- supplements

    def supplements(self, article: etree._Element) -> list[Supplement]:
        out: list[Supplement] = []
        for name in ("supplementary-material", "inline-supplementary-material"):
            for el in _own(article, name):
                if any(local_name(a) == "fig" for a in el.iterancestors() if isinstance(a.tag, str)):
                    continue
                label, caption = self._of(_child(el, "label")), self._of(_child(el, "caption"))
                own = (el.get(XLINK_HREF) or "").strip()
                files = [(el, own)] if own else [(m, (m.get(XLINK_HREF) or "").strip()) for m in el.iter("{*}media")]
                for holder, href in files:
                    if not href:
                        continue
                    text = caption or self._of(_child(holder, "caption"))
                    out.append(Supplement((holder.get("id") or el.get("id") or "").strip(), label, text, href,
                                          _media_type((holder, el), href), _stated_size(text)))
        return out

    # ------------------------------------------------------------------------------------------------------ statements

    def _statement(self, el: etree._Element, kind: str) -> Statement | None:
        title = self._of(_child(el, "title"))
        type_ = statement_type(kind, title) or ("acknowledgements" if local_name(el) == "ack" else "")
        if not type_:
            return None
        text = "\n\n".join(t for t in (self._of(c) for c in el
                                       if isinstance(c.tag, str) and local_name(c) not in ("title", "label")) if t)
        return Statement(type_, title, text) if text else None

    def statements(self, article: etree._Element) -> list[Statement]:
        out: list[Statement] = []
        seen: set[etree._Element] = set()
        for el in article.iter("{*}ack", "{*}notes", "{*}sec", "{*}fn", "{*}funding-statement"):
            if any(a in seen or local_name(a) in _FOREIGN for a in el.iterancestors() if isinstance(a.tag, str)):
                continue
            name = local_name(el)
            if name == "funding-statement":
                text = self._of(el)
                found = Statement("funding", "", text) if text else None
            else:
                kind = el.get(f"{name}-type") or ""
                found = self._statement(el, kind)
            if found is not None:
                out.append(found)
                seen.add(el)
        return out


def _cells(tr: etree._Element) -> list[etree._Element]:
    return [c for c in tr if isinstance(c.tag, str) and local_name(c) in ("td", "th")]


def _spans(cell: etree._Element) -> tuple[int, int]:
    rowspan = span(cell.get("rowspan"), limit=65534)
    colspan = span(cell.get("colspan"), limit=MAX_COLSPAN)
    return rowspan, colspan or 1


_SIZE = re.compile(r"\b(\d+(?:[.,]\d+)?)\s*(bytes|[kmg]i?b)\b", re.I)
_UNITS = {"b": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}


def _media_type(holders: tuple[etree._Element, ...], href: str) -> str:
    """The type the file's element (else the supplement's) states, else its extension's."""
    for el in holders:
        main, sub = (el.get("mimetype") or "").strip(), (el.get("mime-subtype") or "").strip()
        if main and sub:
            return f"{main}/{sub}".lower()
    name = href.split("?", 1)[0].lower()
    extension = name[name.rfind("."):] if "." in name.rsplit("/", 1)[-1] else ""
    return _EXTRA_TYPES.get(extension) or _MEDIA_TYPES.guess_type("file" + extension)[0] or ""


def _stated_size(caption: str) -> int:
    """A size the caption states ("(PDF, 1.2 MB)"), in bytes (a kB taken as 1,024 bytes), else -1."""
    found = _SIZE.search(caption)
    if not found:
        return -1
    unit = found.group(2).lower()
    return round(float(found.group(1).replace(",", ".")) * _UNITS[unit[0] if unit != "bytes" else "b"])


#: the parts read here
_STRUCTURE = frozenset((RichName.tables, RichName.figures, RichName.supplements, RichName.statements))


def add_structure_parts(article: etree._Element, record: ArticleRecord, texts: ElementTexts | None = None, *,
                        max_table_cells: int = DEFAULT_MAX_TABLE_CELLS,
                        wanted: frozenset[RichName] = _STRUCTURE) -> None:
    """Fill the record's tables, figures, supplements and statements from one ``<article>``, those ``wanted``
    (``texts``: the article's, when the caller has them); a table keeps at most ``max_table_cells`` cells."""
    reader = _Reader(ArticleTexts() if texts is None else texts, max_table_cells, article)
    if RichName.tables in wanted:
        record.tables = [reader.table(w) for w in _own(article, "table-wrap")]
    if RichName.figures in wanted:
        record.figures = [reader.figure(f) for f in _own(article, "fig")]
    if RichName.supplements in wanted:
        record.supplements = reader.supplements(article)
    if RichName.statements in wanted:
        record.statements = reader.statements(article)


# ------------------------------------------------------------------------------------------------ absolute media URLs

#: Where each service serves an article's files, by the PMCID
_MEDIA_BASES = {"europepmc": "https://europepmc.org/articles/{pmcid}/bin/",
                "pmc": "https://www.ncbi.nlm.nih.gov/pmc/articles/{pmcid}/bin/"}
_ABSOLUTE = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)


def media_base(service: str, pmcid: str) -> str:
    """The URL an article's figures and files are under at ``service`` ("europepmc" or "pmc"); "" without a
    PMCID."""
    return _MEDIA_BASES[service].format(pmcid=pmcid) if pmcid else ""


def absolute_media(record: ArticleRecord, base: str) -> None:
    """Make the record's figure and supplement URLs absolute under ``base`` (:func:`media_base`). A figure's image
    named without an extension is the service's JPEG rendering of it (``name.jpg``), as both services serve them."""
    if not base:
        return
    record.figures = [f if not f.url or _ABSOLUTE.match(f.url) else
                      Figure(f.id, f.label, f.caption,
                             base + f.url + ("" if "." in f.url.rsplit("/", 1)[-1] else ".jpg"))
                      for f in record.figures]
    record.supplements = [s if not s.url or _ABSOLUTE.match(s.url) else
                          Supplement(s.id, s.label, s.caption, base + s.url, s.media_type, s.size)
                          for s in record.supplements]
