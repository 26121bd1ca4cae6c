"""A page's BeautifulSoup tree made from lxml's own tree of it, at a fraction of BeautifulSoup's cost.

``BeautifulSoup(html, "lxml")`` has lxml parse the page and call back into Python for every tag, text and comment;
BeautifulSoup's handlers then build each node through its general machinery (a tree builder consulted per tag, a
check of every attribute for list-valued ones, the linkage re-checked after every text). That costs about ten times
lxml's parse and was the largest single share of reading a publisher page. Here lxml builds its own tree in C with the
same parser and options, and one Python walk over that tree makes the nodes BeautifulSoup would have made: the same
classes (``Script``, ``Stylesheet``, ``TemplateString``, ``Comment``, ``Doctype`` ...), the same attribute dictionaries
(``class`` and the other multi-valued attributes as lists, a ``<meta>``'s charset substitutions), whitespace-only text
folded to one space or newline outside ``<pre>`` and ``<textarea>``, and the same parent, sibling and document-order
links. ``tests/test_soup_build.py`` checks the two trees node for node on the recorded pages and on awkward markup.

Only text (``str``) is built this way: bytes go to BeautifulSoup, whose encoding detection tries several encodings in
turn. Where lxml's tree does not settle what BeautifulSoup would make (text before the first tag or after ``</html>``
that the tree drops, a second doctype, ``<option selected>`` beside ``selected="selected"``, a start tag long enough
to hold thousands of attributes, an empty page...), :func:`soup_from_text` gives None and the caller asks
BeautifulSoup: 5 of the 88 recorded publisher pages.
"""

from __future__ import annotations

import re
from typing import Any

from bs4 import BeautifulSoup
from bs4.element import AttributeValueList, Comment, Doctype, NavigableString, ProcessingInstruction, Tag
from lxml import etree

from pubfetch.extract.gcpause import collection_paused
from pubfetch.rules.page_index import PageIndex
from pubfetch.rules.xpath import BOOLEAN_ATTRIBUTES

__all__ = ["lxml_root_of", "page_from_text", "soup_from_text"]

#: What BeautifulSoup splits a multi-valued attribute at.
_NON_WHITESPACE = re.compile(r"\S+")
#: Whitespace BeautifulSoup splits such an attribute at and XPath's ``normalize-space`` does not (pubfetch.rules.xpath).
_ODD_SPACE = re.compile(r"[^\S \t\n\r]")
#: The characters a whitespace-only text may hold for BeautifulSoup to fold it.
_ASCII_SPACES = "\x20\x0a\x09\x0c\x0d"
_COMMENT, _PI = etree.Comment, etree.ProcessingInstruction
#: The attributes lxml's tree gives their own name as value when the page gives none, where BeautifulSoup is given "":
#: the tree cannot tell ``selected`` from ``selected="selected"``, the page's text can (the count of the second form
#: in it, against the tree's count of values that are the name).
_BOOLEAN = BOOLEAN_ATTRIBUTES
_BOOLEAN_NAMES = "|".join(sorted(_BOOLEAN))
_BOOLEAN_GIVEN = re.compile(
    r"[\s\"'/]((?i:" + _BOOLEAN_NAMES + r"))\s*=\s*([\"']?)(" + _BOOLEAN_NAMES + r")\2(?=[\s/>])")
#: Where :data:`_BOOLEAN_GIVEN` can match: its ``=`` and value (a scan for "=", where the whole pattern is tried at
#: every whitespace of the page), and the lengths its attribute name can have before the ``=``
_BOOLEAN_VALUE = re.compile(r"=\s*([\"']?)(?:" + _BOOLEAN_NAMES + r")\1(?=[\s/>])")
_BOOLEAN_LENGTHS = sorted({len(name) for name in _BOOLEAN})
#: The end of the page's root element, after which BeautifulSoup is given the page's last whitespace and comments
#: at the top level, where lxml's tree keeps only the comments.
_ROOT_END = re.compile(r"(?i)</html\s*>")
_END_INSIDE = re.compile(r"(?i)</html")
_TOP_TOKEN = re.compile(r"([ \t\n\r\f]+)|<!--(.*?)-->|<\?([^>]*)>", re.DOTALL)
_DOCTYPE = re.compile(r"(?i)<!doctype")
_LEAD_TOKEN = re.compile(r"(?i)(<!doctype[^>]*>)|([ \t\n\r\f]+)|<!--.*?-->|<\?[^>]*>", re.DOTALL)
_START_TAG = re.compile(r"<[A-Za-z]")


#: A start tag this long may hold thousands of attributes, which lxml's tree takes time quadratic in their number to
#: make and to read (50,000: half a minute; BeautifulSoup, given them one tag at a time, a tenth of a second).
_LONG_TAG = re.compile(r"<[A-Za-z][^>]{20000}")
#: lxml's tree stops at 256 elements deep (the rest of the page is lost), where BeautifulSoup is given all of it.
_DEEPEST = 250
_CLOSING = -1
#: Where a tree made here keeps lxml's root element of its page (in the soup's own attributes: an attribute
#: BeautifulSoup does not have is otherwise looked up as a tag name, by a walk of the tree).
_LXML_ROOT = "_pubfetch_lxml_root"


class _Unsure(Exception):
    """The page is one whose BeautifulSoup tree lxml's tree does not determine: BeautifulSoup must build it."""


def _parser() -> etree.HTMLParser:
    """lxml's HTML parser with the options BeautifulSoup's lxml builder gives it, and no doctype of its own making
    (BeautifulSoup receives only the page's)."""
    return etree.HTMLParser(recover=True, default_doctype=False)


def _shell() -> BeautifulSoup:
    """An empty document of BeautifulSoup's lxml builder, to be filled."""
    return BeautifulSoup("", "lxml")


class _Builder:
    """The walk's state: the document, the node made last, and what each tag name gets from the builder."""

    def __init__(self, soup: BeautifulSoup) -> None:
        builder: Any = soup.builder
        #: the attribute dictionaries holding each boolean attribute whose value is its name
        self.named: dict[str, list[dict[str, Any]]] = {}
        self.soup = soup
        self.last: Any = None
        self.builder = builder
        lists = builder.cdata_list_attributes or {}
        self._universal: frozenset[str] = frozenset(lists.get("*", ()))
        self._lists = lists
        self._containers: dict[str, type[NavigableString]] = builder.string_containers
        self._preserve = builder.preserve_whitespace_tags
        self._common = {
            "parser_class": soup.__class__, "namespace": None, "_namespaces": builder.active_namespace_prefixes[-1],
            "prefix": None, "sourceline": None, "sourcepos": None,
            "attribute_value_list_class": builder.attribute_value_list_class, "known_xml": False,
            "next_element": None, "next_sibling": None, "hidden": False,
            "cdata_list_attributes": builder.cdata_list_attributes,
            "preserve_whitespace_tags": builder.preserve_whitespace_tags,
            # BeautifulSoup's ``decomposed`` reads this with a default: a tag without it is searched for a <_decomposed>
            # descendant by a walk of its subtree
            "_decomposed": False,
        }
        #: per tag name: whether it can be an empty element, its string class if it is a string container
        self._per_name: dict[str, tuple[bool, type[NavigableString] | None]] = {}
        self._string_fields = {"hidden": False, "next_element": None, "next_sibling": None}
        #: the page's index, filed as the tags are made (the contents of a <template> left out, as the index does)
        self.elements: list[Tag] = []
        self.by_name: dict[str, list[Tag]] = {}
        self.by_id: dict[str, list[Tag]] = {}
        self.by_class: dict[str, list[Tag]] = {}
        #: the lxml element each filed tag was made from; whether every multi-valued attribute's whitespace is XPath's
        self.lxml_elements: list[Any] = []
        self.exact_classes = True
        #: the tag names of the elements inside a <template> (made, not filed)
        self.in_templates: set[str] = set()
        self._attribute_dict = builder.attribute_dict_class

    def _link(self, node: Any, parent: Tag) -> None:
        """``node`` put last among ``parent``'s children and after everything made so far (BeautifulSoup's links:
        document order through ``next_element``, siblings, parent)."""
        last = self.last
        node.previous_element = last
        if last is not None:
            last.next_element = node
        contents = parent.contents
        if contents:
            sibling = contents[-1]
            node.previous_sibling = sibling
            sibling.next_sibling = node
        else:
            node.previous_sibling = None
        node.parent = parent
        contents.append(node)
        self.last = node

    def text(self, value: str, parent: Tag, container: Tag | None, preserved: bool,
             kind: type[NavigableString] = NavigableString) -> None:
        """A text node as BeautifulSoup's ``endData`` makes it."""
        if not preserved and not value.strip(_ASCII_SPACES):
            value = "\n" if "\n" in value else " "
        if container is not None and kind is NavigableString:
            kind = self._containers.get(container.name, NavigableString)
        node = str.__new__(kind, value)
        node.__dict__.update(self._string_fields)
        self._link(node, parent)

    def tag(self, name: str, attrib: Any, parent: Tag, indexed: bool = True) -> Tag:
        """A tag as BeautifulSoup's ``handle_starttag`` makes it (attributes split where the builder says)."""
        if name[:1] == "{":
            raise _Unsure("a tag name in braces")
        tag = Tag.__new__(Tag)
        fields = tag.__dict__
        fields.update(self._common)
        attrs = self._attribute_dict()
        if attrib:
            specific = self._lists.get(name)
            universal = self._universal
            for key, given in attrib.items():
                if key[:1] == "{":  # BeautifulSoup reads "{...}" at the start of a name as a namespace
                    raise _Unsure("an attribute name in braces")
                value: Any = given
                if key in universal or (specific is not None and key in specific):
                    value = AttributeValueList(_NON_WHITESPACE.findall(given))
                    if self.exact_classes and _ODD_SPACE.search(given):
                        self.exact_classes = False
                elif key in _BOOLEAN and given == key:
                    self.named.setdefault(key, []).append(attrs)
                dict.__setitem__(attrs, key, value)
        known = self._per_name.get(name)
        if known is None:
            known = self._per_name[name] = (self.builder.can_be_empty_element(name), self._containers.get(name))
        fields["name"] = name
        fields["attrs"] = attrs
        fields["contents"] = []
        fields["can_be_empty_element"] = known[0]
        fields["interesting_string_types"] = {known[1]} if known[1] is not None else Tag.MAIN_CONTENT_STRING_TYPES
        self._link(tag, parent)
        if name == "meta":
            self.builder.set_up_substitutions(tag)
        if indexed:
            self._index(tag, name, attrs)
        else:
            self.in_templates.add(name.lower())
        return tag

    def _index(self, tag: Tag, name: str, attrs: dict[str, Any]) -> None:
        """The tag filed as :class:`~pubfetch.rules.page_index.PageIndex` files it."""
        self.elements.append(tag)
        self.by_name.setdefault(name.lower(), []).append(tag)
        if not attrs:
            return
        if "id" in attrs:
            self.by_id.setdefault(str(attrs["id"]).lower(), []).append(tag)
        if "class" in attrs:
            for token in {str(c).lower() for c in attrs["class"]}:
                self.by_class.setdefault(token, []).append(tag)


def soup_from_text(html: str) -> BeautifulSoup | None:
    """The BeautifulSoup tree ``BeautifulSoup(html, "lxml")`` gives, made from lxml's tree; None where lxml's tree
    parser gives no tree (the caller asks BeautifulSoup then)."""
    built = page_from_text(html)
    return built[0] if built is not None else None


def page_from_text(html: str) -> tuple[BeautifulSoup, PageIndex] | None:
    """:func:`soup_from_text`'s tree and its :class:`~pubfetch.rules.page_index.PageIndex`, filed as the tree was
    made."""
    if html[:1] == "\ufeff":  # as BeautifulSoup does with text
        html = html[1:]
    if _LONG_TAG.search(html):
        return None
    parser = _parser()
    try:
        parser.feed(html)
        root = parser.close()
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None
    except SystemError:
        raise _out_of_memory() from None
    if root is None:
        return None
    with collection_paused():
        try:
            return _build(html, root)
        except _Unsure:
            return None
        except SystemError:
            raise _out_of_memory() from None


def lxml_root_of(soup: BeautifulSoup) -> Any:
    """lxml's root element (``<html>``) of the page :func:`page_from_text` made ``soup`` from, for a reader that can
    work on lxml's tree without parsing the page again; None where BeautifulSoup built the tree. It is the page as
    parsed: what is later taken out of the soup stays in it, and a reader that changes it (trafilatura does) must
    change a copy, as other readers share it."""
    return soup.__dict__.get(_LXML_ROOT)


def _out_of_memory() -> MemoryError:
    """lxml's C code that fails an allocation (under a page worker's address-space cap: a tag-dense page of millions
    of elements) returns without setting an exception, which Python reports as a SystemError; it is the page's memory
    limit reached, and the worker abandons the page as such instead of calling it a bug."""
    return MemoryError("lxml could not allocate the page's tree")


def _build(html: str, root: Any) -> tuple[BeautifulSoup, PageIndex]:
    """The tree of a page lxml parsed into ``root``; :class:`_Unsure` where the page's text leaves it open."""
    soup = _shell()
    build = _Builder(soup)
    dtd = root.getroottree().docinfo.internalDTD
    if len(_DOCTYPE.findall(html)) > (dtd is not None):  # a doctype after the first: BeautifulSoup keeps it in place
        raise _Unsure("more than one doctype")
    before = list(root.itersiblings(preceding=True))[::-1]
    ahead = _ahead_of_doctype(html, len(before))
    for node in before[:ahead]:
        _other(build, node, soup, None, False)
    if dtd is not None:
        build.text(Doctype._string_for_name_and_ids(dtd.name, dtd.external_id, dtd.system_url), soup, None, True,
                   Doctype)
    for node in before[ahead:]:
        _other(build, node, soup, None, False)
    _element(build, root, soup)
    _after_root(build, html, list(root.itersiblings()))
    _boolean_values(build.named, html)
    soup._most_recent_element = build.last
    soup.__dict__[_LXML_ROOT] = root
    return soup, PageIndex.filed(soup, build.elements, build.by_name, build.by_id, build.by_class,
                                 build.lxml_elements, build.exact_classes, build.in_templates)


def _ahead_of_doctype(html: str, comments: int) -> int:
    """How many of the ``comments`` before the root come before the doctype (an XML declaration, which the parser
    makes a comment, often does), from the page's text; :class:`_Unsure` unless the text opens with whitespace,
    comments and a doctype and then a start tag (a page opening with text or a stray end tag gives BeautifulSoup
    top-level text the tree does not keep)."""
    position, found, ahead = 0, 0, -1
    while True:
        token = _LEAD_TOKEN.match(html, position)
        if token is None:
            break
        if token.group(1) is not None:
            ahead = found
        elif token.group(2) is None:
            found += 1
        position = token.end()
    if not _START_TAG.match(html, position) or found != comments:
        raise _Unsure("the page does not open with its root's start tag")
    return found if ahead < 0 else ahead


def _texts_of(node: Any) -> list[str]:
    """A node's text, or a tag's attribute values."""
    if isinstance(node, Tag):
        return [v if isinstance(v, str) else " ".join(v) for v in node.attrs.values()]
    return [] if node is None else [str(node)]


def _boolean_values(named: dict[str, list[dict[str, Any]]], html: str) -> None:
    """Each boolean attribute whose value in the tree is its name given BeautifulSoup's value: "" where the page
    never writes it with its name as value, the name where it always does; :class:`_Unsure` where it mixes both."""
    if not named:
        return
    written: dict[str, int] = {}
    for name, _quote, value in _boolean_given(html):
        if name.lower() == value:
            written[value] = written.get(value, 0) + 1
    for name, holders in named.items():
        count = written.get(name, 0)
        if count == 0:
            for attrs in holders:
                dict.__setitem__(attrs, name, "")
        elif count != len(holders):
            raise _Unsure(f"{name} written both ways")


def _boolean_given(html: str) -> list[tuple[str, str, str]]:
    """``_BOOLEAN_GIVEN.findall(html)``, the pattern tried only where an attribute name can end before a value it
    can match (its matches never overlap: each is followed by a character none starts with)."""
    found: dict[int, tuple[str, str, str]] = {}
    for value in _BOOLEAN_VALUE.finditer(html):
        end = value.start()
        while end > 0 and html[end - 1].isspace():  # the pattern's \s before the "="
            end -= 1
        for length in _BOOLEAN_LENGTHS:
            start = end - length - 1
            if start >= 0 and (match := _BOOLEAN_GIVEN.match(html, start)) is not None:
                found[start] = (match.group(1), match.group(2), match.group(3))
    return [found[start] for start in sorted(found)]


def _after_root(build: _Builder, html: str, after: list[Any]) -> None:
    """What follows the page's ``</html>``: BeautifulSoup's top-level text and comments, from the page's text (lxml's
    tree has the comments only), checked against the tree's."""
    ends = list(_ROOT_END.finditer(html))
    last = build.last
    if ends and _END_INSIDE.search(" ".join(_texts_of(last))):
        raise _Unsure("the last </html> is inside a text or an attribute")
    if not ends:
        if after:
            raise _Unsure("top-level nodes after an unclosed root")
        return
    tail, position, nodes = html, ends[-1].end(), iter(after)
    while position < len(tail):
        token = _TOP_TOKEN.match(tail, position)
        if token is None:
            raise _Unsure("markup after </html>")
        position = token.end()
        if token.group(1) is not None:
            build.text(token.group(1), build.soup, None, False)
            continue
        node = next(nodes, None)
        if node is None or _other(build, node, build.soup, None, False) is False:
            raise _Unsure("the tree's top-level nodes are not the page's")
    if next(nodes, None) is not None:
        raise _Unsure("the tree's top-level nodes are not the page's")


def _other(build: _Builder, node: Any, parent: Tag, container: Tag | None, preserved: bool) -> bool:
    """A comment or processing instruction (True), or False for an element."""
    kind = node.tag
    if kind is _COMMENT:
        build.text(node.text or "", parent, container, preserved, Comment)
    elif kind is _PI:
        build.text(f"{node.target} {node.text or ''}", parent, container, preserved, ProcessingInstruction)
    elif isinstance(kind, str):
        return False
    # an entity reference or anything else lxml's HTML parser does not make: nothing, as BeautifulSoup gets no event
    return True


def _element(build: _Builder, root: Any, parent: Tag) -> None:
    """``root`` and everything below it, in document order (lxml's walk, in C); each node's tail after it."""
    text, make_tag, lxml_elements = build.text, build.tag, build.lxml_elements
    containers, preserve = build._containers, build._preserve
    tags: list[Tag] = [parent]
    # the string container (the innermost <script>, <style>, <template> ...) and whether inside <pre>/<textarea>,
    # of each open tag's parent
    outer: list[tuple[Tag | None, bool, bool]] = []
    container: Tag | None = None
    preserved = unindexed = False
    for event, node in etree.iterwalk(root, events=("start", "end", "comment", "pi")):
        if event == "start":
            if len(tags) > _DEEPEST:
                raise _Unsure("as deep as lxml's tree goes")
            name = node.tag
            tag = make_tag(name, node.attrib, tags[-1], not unindexed)
            if not unindexed:
                lxml_elements.append(node)
            tags.append(tag)
            outer.append((container, preserved, unindexed))
            if name == "template":
                unindexed = True
            if name in containers:
                container = tag
            if name in preserve:
                preserved = True
            if node.text:
                text(node.text, tag, container, preserved)
            continue
        if event == "end":
            tags.pop()
            container, preserved, unindexed = outer.pop()
        elif not _other(build, node, tags[-1], container, preserved):
            raise _Unsure("a node lxml's walk does not name")
        if node.tail:
            text(node.tail, tags[-1], container, preserved)
