"""The links and identifiers of a JATS ``<article>``: what its markup says is a link, and what its words hold.

Where they are looked for: the abstracts, the author notes, the funding group, the body, the back matter (notes,
sections, footnotes, appendices, acknowledgements, glossary) and the floats, but not the reference list (those are
the references), the licence, the contributors or the journal's metadata, nor a ``sub-article`` or ``response``.

* Marked up: each ``ext-link``, ``uri`` and ``related-object`` (its kind from ``ext-link-type`` /
  ``document-id-type`` / ``source-id-type`` when it names one of the link kinds, else from its value; any form of a
  kind's pattern counts here, the markup says it is one) and each ``award-id`` (a grant).
* In the words: each paragraph-like element (``p``, table cells, glossary terms and definitions, ``attrib``,
  titles; the outermost one, so a paragraph in a list in a paragraph is read once) by
  :func:`pubfetch.extract.text_links.find_links`; a link the markup gives is not found again in its words.

The section path is the titles of the sections around the element, from the outermost; a part without a title is
named by what it is (``Abstract``, ``Acknowledgements``, ``Footnotes``, ``Funding``, ...).
"""

from __future__ import annotations

from lxml import etree

from pubfetch.extract.jats_text import ElementTexts
from pubfetch.extract.sentences import sentence_at
from pubfetch.extract.text_links import LinkSet, find_block_links, marked_link
from pubfetch.extract.xmlsafe import local_name
from pubfetch.model.links import LINK_KINDS, TextLink

__all__ = ["MARKED", "jats_links", "link_scopes"]

XLINK_HREF = "{http://www.w3.org/1999/xlink}href"

#: the elements that mark a link up
MARKED = ("ext-link", "uri", "related-object")
#: the same as tags in any namespace, for ``iter``
_MARKED_TAGS = tuple("{*}" + m for m in MARKED)

#: where in an article links are looked for (XPath from the ``<article>``)
_SCOPES = ("front/article-meta/abstract", "front/article-meta/trans-abstract", "front/article-meta/author-notes",
           "front/article-meta/funding-group", "body", "back", "floats-group")
_EXCLUDED = frozenset(("ref-list", "sub-article", "response"))
_BLOCKS = frozenset(("p", "td", "th", "term", "def", "attrib", "title"))
#: parts named by what they are when they have no title
_UNTITLED = {"abstract": "Abstract", "trans-abstract": "Abstract", "ack": "Acknowledgements", "fn-group": "Footnotes",
             "author-notes": "Author notes", "funding-group": "Funding", "app": "Appendix", "notes": "Notes",
             "glossary": "Glossary", "bio": "Biography"}
_SECTIONS = frozenset(("sec", "boxed-text", "app-group", *_UNTITLED))

#: ``ext-link-type`` and ``*-id-type`` values (PMC's tagging guidelines) for the link kinds
_TYPES = {"uri": "url", "url": "url", "ftp": "url", "doi": "doi", "gen": "insdc", "genbank": "insdc",
          "embl": "insdc", "ddbj": "insdc", "ena": "insdc", "refseq": "refseq", "uniprot": "uniprot",
          "swissprot": "uniprot", "pdb": "pdb", "geo": "geo", "sra": "sra", "bioproject": "bioproject",
          "biosample": "bioproject", "arrayexpress": "arrayexpress", "ensembl": "ensembl", "rrid": "rrid",
          "clinical-trial": "clinicalTrial", "clinicaltrial": "clinicalTrial", "clintrialgov": "clinicalTrial",
          "clinicaltrials.gov": "clinicalTrial", "isrctn": "clinicalTrial"}


def _name(tag: str) -> str:
    """An element's tag without its namespace (:func:`~pubfetch.extract.xmlsafe.local_name` of an element known to be
    one: the walk asks it of every element of the article)."""
    return tag if tag[:1] != "{" else tag.rsplit("}", 1)[-1]


def link_scopes(article: etree._Element) -> list[etree._Element]:
    """The parts of the article links are looked for in (see the module docstring)."""
    out: list[etree._Element] = []
    for path in _SCOPES:
        out += [e for e in article.xpath(path) if isinstance(e, etree._Element)]
    return out


def _declared_kind(el: etree._Element) -> str:
    for name in ("ext-link-type", "document-id-type", "source-id-type", "link-type"):
        value = (el.get(name) or "").strip().lower()
        if value in _TYPES:
            return _TYPES[value]
        if value in LINK_KINDS:
            return value
    return "url" if local_name(el) == "uri" else ""


class _Walk:
    def __init__(self, article: etree._Element, texts: ElementTexts) -> None:
        self.article = article
        self.texts = texts
        #: the blocks met: text, section path, the texts of the links marked in it
        self.blocks: list[tuple[str, tuple[str, ...], list[str]]] = []
        #: in document order: (a block's index, its marked links), or (-1, a link outside any block)
        self.items: list[tuple[int, list[TextLink]]] = []
        #: the path of each section met, by its element
        self._paths: dict[etree._Element, tuple[str, ...]] = {}

    def path(self, el: etree._Element) -> tuple[str, ...]:
        """The section path of an element: the titles (or names) of the parts around it, outermost first."""
        parent = el.getparent()
        if parent is not None and parent in self._paths:  # a section's own paragraph: the section's path
            return self._paths[parent]
        section = next((a for a in el.iterancestors() if a is self.article or _name(a.tag) in _SECTIONS), None)
        if section is None or section is self.article:
            return ()
        known = self._paths.get(section)
        if known is None:
            title = next((self.texts.of(t) for t in section.iterchildren("{*}title")), "")
            label = title or _UNTITLED.get(local_name(section), "")
            known = (*self.path(section), *((label,) if label else ()))
            self._paths[section] = known
        return known

    def marked(self, el: etree._Element, block_text: str, path: tuple[str, ...]) -> TextLink | None:
        own = self.texts.of(el)
        value = (el.get("document-id") or "").strip() or own
        hit = marked_link(_declared_kind(el), value, el.get(XLINK_HREF, ""))
        if hit is None:
            return None
        at = block_text.find(own) if own else -1
        sentence = sentence_at(block_text, at, at + len(own)) if at >= 0 else own
        return TextLink(*hit, section_path=path, sentence=sentence, marked=True)

    def block(self, block: etree._Element) -> None:
        """A paragraph-like element: its marked links now, its words with every other block's at the end."""
        path = self.path(block)
        text = self.texts.of(block)
        marked = [(self.texts.of(el), self.marked(el, text, path))
                  for el in block.iter(*_MARKED_TAGS)]
        self.items.append((len(self.blocks), [link for _, link in marked if link is not None]))
        self.blocks.append((text, path, [own for own, _ in marked]))

    def scope(self, top: etree._Element) -> None:
        """Every block, marked link and award ID of ``top``, in document order, without entering a block (it is read
        whole) or an excluded part."""
        stack = [top]
        while stack:  # iterative: hostile nesting costs no recursion
            el = stack.pop()
            name = _name(el.tag)
            if name in _EXCLUDED:
                continue
            if name == "award-id":
                grant = self.texts.of(el)
                if grant:
                    self.items.append((-1, [TextLink("grant", grant, "", self.path(el) or ("Funding",), grant, True)]))
            elif name in _BLOCKS:
                self.block(el)
            elif name in MARKED:
                link = self.marked(el, self.texts.of(el.getparent()), self.path(el))
                self.items.append((-1, [link] if link is not None else []))
            else:
                stack += [c for c in reversed(el) if isinstance(c.tag, str)]

    def links(self) -> list[TextLink]:
        """Every link in document order: each block's marked links, then those of its words (one a marked link's
        text holds is that link)."""
        found: dict[int, list[TextLink]] = {}
        for block, link in find_block_links([text for text, _, _ in self.blocks], [p for _, p, _ in self.blocks]):
            found.setdefault(block, []).append(link)
        links = LinkSet()
        for block, marked in self.items:
            for link in marked:
                links.add(link)
            own_texts = self.blocks[block][2] if block >= 0 else []
            for link in found.get(block, []) if block >= 0 else []:
                if not any(link.value in own for own in own_texts):
                    links.add(link)
        return links.links()


def jats_links(article: etree._Element, texts: ElementTexts) -> list[TextLink]:
    """The article's links, in document order of their paragraphs (see the module docstring)."""
    walk = _Walk(article, texts)
    for top in link_scopes(article):
        walk.scope(top)
    return walk.links()
