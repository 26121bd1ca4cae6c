"""An indented PubMed answer parsed without its indentation, by the rule of PubMed's own DTD.

MEDLINE's files are indented (efetch's own answers are not), and there the blank text between elements is about half of
the nodes libxml2 makes (and frees) for a batch: a good part of reading one. XML itself says which blanks carry nothing
(XML 1.0, 2.10 "White Space Handling"): those inside an element whose declared content is elements only. libxml2 leaves
them out when asked (``remove_blank_text``) and when the document declares its elements; such a file names PubMed's DTD
but libxml2 does not load it (pubfetch never fetches a DTD), so where nothing is declared it would guess instead, and
its guess drops the blank between two inline elements of a text (``<i>Mus</i> <i>musculus</i>``). This module gives the
document the declarations of ``pubmed_250101.dtd`` it needs, as an internal subset: every element of that DTD is
declared either with element content (its blanks dropped) or with ``ANY`` (every blank kept: text, inline markup,
MathML), so nothing PubMed writes is left to the guess. Only an element outside that DTD would be (a blank between two
of its own children with no text before them); PubMed's answers have none.

The declarations set no attribute defaults and define no entity: the parse stays as inert as
:mod:`pubfetch.extract.xmlsafe` makes every other.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from typing import IO

__all__ = ["ELEMENT_CONTENT", "DeclaredStream", "declared", "declared_pieces"]

#: The elements of ``pubmed_250101.dtd`` declared with element content: containers whose blank text is indentation.
_ELEMENT_CONTENT_NAMES = """
    PubmedArticleSet BookDocumentSet PubmedBookArticleSet PubmedArticle PubmedBookArticle BookDocument DeleteCitation
    DeleteDocument MedlineCitation PubmedData PubmedBookData Article Abstract AccessionNumberList AffiliationInfo
    ArticleDate ArticleIdList Author AuthorList BeginningDate Book Chemical ChemicalList CommentsCorrections
    CommentsCorrectionsList ContributionDate DataBank DataBankList DateCompleted DateRevised EndingDate GeneSymbolList
    Grant GrantList History Investigator InvestigatorList ItemList Journal JournalIssue KeywordList MedlineJournalInfo
    MeshHeading MeshHeadingList Object ObjectList OtherAbstract Pagination PersonalNameSubject PersonalNameSubjectList
    PubDate PublicationTypeList PubMedPubDate Publisher Reference ReferenceList Section Sections SupplMeshList
"""
ELEMENT_CONTENT = frozenset(_ELEMENT_CONTENT_NAMES.split())

#: Every other element of that DTD (text, inline markup and leaves; ``DispFormula`` holds MathML, kept as written).
_KEPT_AS_WRITTEN_NAMES = """
    AbstractText Affiliation ArticleTitle b BookTitle Citation CoiStatement CollectionTitle CollectiveName i Keyword
    Param PublisherName SectionTitle sub Suffix sup u VernacularTitle VolumeTitle DispFormula
    AccessionNumber Acronym Agency ArticleId CitationSubset ContractNumber CopyrightInformation Country DataBankName Day
    DescriptorName Edition ELocationID EndPage ForeName GeneSymbol GeneralNote GrantID Hour Identifier Initials Isbn
    ISOAbbreviation ISSN ISSNLinking Issue Item Language LastName LocationLabel Medium MedlineDate MedlinePgn MedlineTA
    Minute Month NameOfSubstance NlmUniqueID Note NumberOfReferences OtherID PMID PublicationStatus PublicationType
    PublisherLocation QualifierName RefSource RegistryNumber ReportNumber Season Second SpaceFlightMission StartPage
    SupplMeshName Title URL Volume Year ERROR
"""

#: The presentation elements of MathML 3 (and its ``semantics`` wrapper), as PubMed writes them (``mml:``) and
#: unprefixed: libxml2 looks a declaration up by the element's prefix and local name. Content MathML, which PubMed
#: does not use, is left to libxml2's guess, which only joins the blanks between two of its own children.
_MATHML_NAMES = """
    math maction maligngroup malignmark menclose merror mfenced mfrac mglyph mi mlabeledtr mlongdiv mmultiscripts mn
    mo mover mpadded mphantom mprescripts mroot mrow ms mscarries mscarry msgroup msline mspace msqrt msrow mstack
    mstyle msub msubsup msup mtable mtd mtext mtr munder munderover none semantics annotation annotation-xml
"""

_SUBSET = ("".join(f"<!ELEMENT {name} (x)*>" for name in sorted(ELEMENT_CONTENT))
           + "".join(f"<!ELEMENT {name} ANY>" for name in _KEPT_AS_WRITTEN_NAMES.split())
           + "".join(f"<!ELEMENT {prefix}{name} ANY>" for prefix in ("", "mml:")
                     for name in _MATHML_NAMES.split())).encode("ascii")

#: A prolog: an optional UTF-8 byte order mark, XML declaration and document type declaration without an internal
#: subset (its literals quoted either way), each followed by blanks.
_PROLOG = re.compile(
    rb"""(?:\xef\xbb\xbf)?(?:<\?xml[^?>]*\?>)?\s*"""
    rb"""(?:<!DOCTYPE\s+[A-Za-z_][\w.:-]*"""
    rb"""(?:\s+(?:SYSTEM|PUBLIC\s+(?:"[^"]*"|'[^']*'))\s+(?:"[^"]*"|'[^']*'))?\s*(?P<end>>))?\s*""")


#: The smallest document given the declarations: reading them costs about what the indentation of ten records does.
MIN_DECLARED = 64 * 1024
#: How far into the document its indentation is looked for.
_LOOKED_AT = 4096
_INDENTED = re.compile(rb">[ \t]*\r?\n[ \t]+<")


def declared(data: bytes) -> bytes | None:
    """The document with those declarations in its document type declaration (one added when it has none); None
    when they would not pay or cannot be added: a document shorter than :data:`MIN_DECLARED` or not indented near its
    start (efetch's own answers are written without indentation, MEDLINE's files with it), one that does not start
    as UTF-8 XML, or one whose type declaration has an internal subset of its own (which would then declare elements
    twice)."""
    if len(data) < MIN_DECLARED:
        return None
    prolog = _PROLOG.match(data)
    if prolog is None:
        return None
    at = prolog.end()
    if data[at:at + 1] != b"<" or data[at:at + 2] in (b"<!", b"<?"):
        return None  # a comment, a second declaration or an internal subset before the root: left as it is
    if _INDENTED.search(data, at, at + _LOOKED_AT) is None:
        return None
    end = prolog.start("end")
    if end >= 0:
        return b"".join((data[:end], b" [", _SUBSET, b"]", data[end:]))
    return b"".join((data[:at], b"<!DOCTYPE PubmedArticleSet [", _SUBSET, b"]>", data[at:]))


def declared_pieces(pieces: Iterable[bytes]) -> tuple[bool, Iterator[bytes]]:
    """A document given in pieces (:mod:`pubfetch.extract.pubmed_cut`) with the declarations in its head when
    :func:`declared` gives them: whether it did, and the pieces (the head, at least :data:`MIN_DECLARED` bytes of
    them joined, then the others as they come)."""
    stream = iter(pieces)
    head = [next(stream, b"")]
    size = len(head[0])
    while size < MIN_DECLARED and (piece := next(stream, None)) is not None:
        head.append(piece)
        size += len(piece)
    joined = head[0] if len(head) == 1 else b"".join(head)
    with_declarations = declared(joined)
    first = joined if with_declarations is None else with_declarations
    return with_declarations is not None, itertools.chain((first,), stream)


class DeclaredStream:
    """A file read as a stream (a MEDLINE file through ``iterparse``) with the declarations in its head when
    :func:`declared` gives them (``declared``: whether it did, so that the parse may drop the indentation); its bytes
    as they are otherwise. The declarations add no line, so a parser's line numbers are the file's."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        head = b""
        while len(head) < MIN_DECLARED:
            more = stream.read(MIN_DECLARED - len(head))
            if not more:
                break
            head += more
        with_declarations = declared(head)
        self.declared = with_declarations is not None
        self._head = with_declarations if with_declarations is not None else head

    def read(self, size: int = -1) -> bytes:
        if not self._head:
            return self._stream.read(size)
        if size < 0:
            head, self._head = self._head, b""
            return head + self._stream.read()
        head, self._head = self._head[:size], self._head[size:]
        return head
