"""The data model: publications and their parts, webpages and docs, the fetch state they share, the record parsers
return and how a record is merged into a publication."""

from pubfetch.model.edges import CitationEdge
from pubfetch.model.entry import FetchState
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import Author, CorrespAuthor, ListPart, MeshTerm, MinedTerm, StringPart, VisitedSite
from pubfetch.model.publication import Publication
from pubfetch.model.record import ArticleRecord, Link
from pubfetch.model.webpage import Webpage

__all__ = ["ArticleRecord", "Author", "CitationEdge", "CorrespAuthor", "FetchState", "Link", "ListPart", "MeshTerm",
           "MinedTerm", "PartName", "PartType", "Publication", "StringPart", "VisitedSite", "Webpage", "apply_record"]
