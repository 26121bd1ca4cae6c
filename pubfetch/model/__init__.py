"""The data model: publications and their parts, webpages and docs, and the fetch state they share."""

from pubfetch.model.entry import FetchState
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import Author, CorrespAuthor, ListPart, MeshTerm, MinedTerm, StringPart, VisitedSite
from pubfetch.model.publication import Publication
from pubfetch.model.webpage import Webpage

__all__ = ["Author", "CorrespAuthor", "FetchState", "ListPart", "MeshTerm", "MinedTerm", "PartName", "PartType",
           "Publication", "StringPart", "VisitedSite", "Webpage"]
