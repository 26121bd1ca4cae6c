"""What every output form shares: format and entry-kind names, PubFetcher's labels, part selection, the version block.

The labels are PubFetcher's own (``PublicationPartName.getName()``, ``PublicationPartType.getType()``) so that text and
HTML read the same as PubFetcher's; they live here rather than in the model because only the output shows them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from pubfetch._version import __version__
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.timefmt import date_human, instant_human

if TYPE_CHECKING:
    from pubfetch.fetcher_args import FetcherArgs

PROJECT_NAME = "pubfetch"
PROJECT_URL = "https://pypi.org/project/pubfetch/"

#: The "URL" PubFetcher (and pubfetch) store for an ID given as input: the program's name and version, not a place.
_PROGRAM_MARK = re.compile(r"^(?:pubfetch|PubFetcher) \d[\w.+-]*$", re.IGNORECASE)
GIVEN_AS_INPUT = "given as input"


def source_text(url: str) -> str:
    """Where a part came from, for people: its URL, or "given as input" for an ID the user gave (stored, as
    PubFetcher stores it, as "pubfetch 0.1.0", which reads as if it were an address)."""
    return GIVEN_AS_INPUT if _PROGRAM_MARK.match(url.strip()) else url


def date_text(ms: int) -> str:
    """A publication date with its epoch milliseconds; an unknown one (negative) is "unknown", not 1969-12-31."""
    return f"{date_human(ms)} ({ms})" if ms >= 0 else f"unknown ({ms})"


def instant_text(ms: int) -> str:
    """An instant with its epoch milliseconds; an unset one (0, or PubFetcher's -1) is "unknown", not 1970-01-01."""
    return f"{instant_human(ms)} ({ms})" if ms > 0 else f"unknown ({ms})"


class Format(StrEnum):
    """Output formats: PubFetcher's three (``--format``), JSON Lines for pipelines, LOCKSS-style ArticleMetadata
    records (``metadata``: the JSON document with records in place of entries; ``metadata-jsonl``: one per line),
    citations for reference managers (``csljson``, ``bibtex``, ``ris``), Markdown for language-model pipelines; and
    ``edges``: the citation edges a snowball stored among the publications, as CSV (:mod:`pubfetch.output.edges`;
    ``-out`` only)."""

    text = "text"
    html = "html"
    json = "json"
    jsonl = "jsonl"
    metadata = "metadata"
    metadata_jsonl = "metadata-jsonl"
    csljson = "csljson"
    bibtex = "bibtex"
    ris = "ris"
    #: passages for retrieval: JSON Lines, one paragraph (or a part of one) a line (:mod:`pubfetch.output.chunks`)
    chunks = "chunks"
    edges = "edges"
    markdown = "markdown"

    @property
    def is_json(self) -> bool:
        return self in (Format.json, Format.metadata)

    @property
    def is_jsonl(self) -> bool:
        return self in (Format.jsonl, Format.metadata_jsonl, Format.chunks)

    @property
    def is_citation(self) -> bool:
        """Citations for reference managers (CSL-JSON, BibTeX, RIS): publications only."""
        return self in (Format.csljson, Format.bibtex, Format.ris)


Kind = Literal["publication", "webpage", "doc"]
KINDS: tuple[Kind, ...] = ("publication", "webpage", "doc")
"""Entry kinds in the order PubFetcher writes them; JSON arrays are named ``<kind>s``."""

PART_LABELS: dict[PartName, str] = {
    PartName.pmid: "PMID",
    PartName.pmcid: "PMCID",
    PartName.doi: "DOI",
    PartName.title: "Title",
    PartName.keywords: "Keywords",
    PartName.mesh: "MeSH terms",
    PartName.efo: "EFO terms",
    PartName.go: "GO terms",
    PartName.theAbstract: "Abstract",
    PartName.fulltext: "Fulltext",
}

TYPE_LABELS: dict[PartType, str] = {
    PartType.europepmc: "Europe PubMed Central",
    PartType.europepmc_xml: "Europe PubMed Central fulltext XML",
    PartType.europepmc_html: "Europe PubMed Central fulltext HTML",
    PartType.pubmed_xml: "PubMed XML",
    PartType.pubmed_html: "PubMed HTML",
    PartType.pmc_xml: "PubMed Central XML",
    PartType.pmc_html: "PubMed Central HTML",
    PartType.doi: "DOI",
    PartType.link: "Link to publication",
    PartType.link_oadoi: "Link from oaDOI",
    PartType.citation: "HighWire",
    PartType.eprints: "EPrints",
    PartType.bepress: "bepress",
    PartType.link_citation: "Link from Highwire",
    PartType.link_eprints: "Link from EPrints",
    PartType.dc: "Dublin Core",
    PartType.og: "Open Graph",
    PartType.twitter: "Twitter",
    PartType.meta: "HTML meta",
    PartType.link_meta: "Link from HTML meta",
    PartType.external: "Externally supplied",
    PartType.oadoi: "oaDOI",
    PartType.crossref: "Crossref",
    PartType.datacite: "DataCite",
    PartType.openalex: "OpenAlex",
    PartType.biorxiv: "bioRxiv/medRxiv",
    PartType.pdf_europepmc: "PDF from Europe PubMed Central",
    PartType.pdf_pmc: "PDF from PubMed Central",
    PartType.pdf_doi: "PDF DOI",
    PartType.pdf_link: "PDF from link to publication",
    PartType.pdf_oadoi: "PDF from oaDOI",
    PartType.pdf_citation: "PDF from HighWire",
    PartType.pdf_eprints: "PDF from EPrints",
    PartType.pdf_bepress: "PDF from bepress",
    PartType.pdf_meta: "PDF from HTML meta",
    PartType.webpage: "Whole webpage",
    PartType.na: "NA",
}

_ID_PARTS = (PartName.pmid, PartName.pmcid, PartName.doi)


def type_label(type_: PartType) -> str:
    return TYPE_LABELS.get(type_, type_.value)


def as_format(fmt: Format | str) -> Format:
    try:
        return Format(fmt)
    except ValueError:
        expected = ", ".join(f.value for f in Format)
        raise ValueError(f"unknown output format '{fmt}': expected one of {expected}") from None


def check_kind(kind: str) -> Kind:
    if kind not in KINDS:
        raise ValueError(f"unknown entry kind '{kind}': expected one of {', '.join(KINDS)}")
    return kind


def select_parts(parts: Iterable[PartName | str] | None) -> list[PartName] | None:
    """The ``--out-part`` selection without repeats; None means "no selection" (whole entries).

    Names may be given as in JSON (``abstract``) or as PubFetcher's enum names (``theAbstract``).
    """
    if parts is None:
        return None
    chosen: list[PartName] = []
    for p in parts:
        name = p if isinstance(p, PartName) else PartName.parse(p)
        if name not in chosen:
            chosen.append(name)
    return chosen


def in_order(parts: Sequence[PartName]) -> list[PartName]:
    """Selected parts in the fixed part order: PubFetcher writes them so whatever order the user listed them in."""
    return [n for n in PartName if n in parts]


def is_id_only(parts: Sequence[PartName] | None) -> bool:
    """A selection of IDs only: plain output then becomes ``pmid<TAB>pmcid<TAB>doi`` lines (or an HTML table)."""
    return bool(parts) and all(p in _ID_PARTS for p in parts)  # type: ignore[union-attr]


def is_one_liner(parts: Sequence[PartName] | None, plain: bool) -> bool:
    """Whether plain part output fits one line per publication, so entries get no separator between them.

    PubFetcher's rule: a single part other than abstract and fulltext, or only IDs.
    """
    if not plain or not parts:
        return False
    if len(parts) == 1 and parts[0] not in (PartName.theAbstract, PartName.fulltext):
        return True
    return is_id_only(parts)


def version_info(version: str | None = None) -> dict[str, str]:
    """The ``version`` block at the top of every JSON document, naming the program that wrote it."""
    return {"name": PROJECT_NAME, "url": PROJECT_URL, "version": version or __version__}


def resolve_args(args: FetcherArgs | None) -> FetcherArgs:
    """The fetching parameters decide usable/final flags in JSON; PubFetcher's defaults when none are given."""
    if args is not None:
        return args
    from pubfetch.model.publication import default_args

    return default_args()
