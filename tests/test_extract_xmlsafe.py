"""XML from the web parsed without reaching anything (pubfetch/extract/xmlsafe.py): entities stay unresolved, no DTD
or network is loaded, and anything that is not XML is one exception type."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from lxml import etree

from pubfetch.extract.xmlsafe import XmlError, collapse, local_name, parse_xml, parse_xml_pieces, text_of


def test_an_external_entity_is_not_read(tmp_path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    doc = (f'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file://{secret}">]>'
           "<article><title>&x;</title></article>")
    root = parse_xml(doc.encode())
    assert "TOP SECRET" not in text_of(root)


def test_an_entity_expansion_bomb_is_refused_or_left_unexpanded() -> None:
    entities = '<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8))
    try:
        root = parse_xml(f'<!DOCTYPE r [{entities}]><r>&i;</r>'.encode())
    except XmlError:  # libxml2 refuses the amplification outright
        return
    assert len(text_of(root)) < 1000  # or leaves the entities unexpanded


@pytest.mark.parametrize("data", [b"", b"   \n", b"<unclosed>", "not xml at all", b"<a></b>"])
def test_what_is_not_xml_is_an_xml_error(data) -> None:
    with pytest.raises(XmlError):
        parse_xml(data)


def test_a_str_with_an_encoding_declaration_is_read_as_its_text() -> None:
    root = parse_xml('<?xml version="1.0" encoding="ISO-8859-1"?><t>caf\u00e9</t>')
    assert text_of(root) == "caf\u00e9"


def test_a_truncated_document_is_salvaged_only_when_asked() -> None:
    cut = b"<set><article><title>Kept</title></article><article><title>Cut sho"
    with pytest.raises(XmlError):
        parse_xml(cut)
    assert "Kept" in text_of(parse_xml(cut, recover=True))


def test_names_without_namespaces_and_text_with_space_collapsed() -> None:
    root = parse_xml(b'<a xmlns="urn:x"><!-- gone --><b>  two\n  words </b></a>')
    assert local_name(root) == "a" and [local_name(c) for c in root] == ["b"]
    assert text_of(root) == "two words" and text_of(None) == ""


#: every character ``str.split`` splits at
_SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace()]


@pytest.mark.parametrize("space", _SPACES)
def test_collapse_is_split_and_join_for_every_white_space_character(space: str) -> None:
    long = "word " * 12  # past the length from which an ASCII text is searched for its controls, not looked up
    for text in (f"a{space}b", f"{space}a", f"a{space}", f"a {space}b", f"a{space}{space}b", space, f"\u00e9{space}",
                 "a b", "", "a  b", " a", "a ", "\u00e9t\u00e9 \u2014 ok", f"{long}a{space}b", f"{space}{long}a",
                 f"{long}a{space}", f"{long}{space}b", f"{long}a", f"{long}\u00e9{space}b"):
        assert collapse(text) == " ".join(text.split())


@pytest.mark.parametrize("space", ["&#9;", "&#10;", "&#13;", "\n", "\t", "\u00a0", "\u2009", "\u3000", " "])
def test_a_long_leaf_text_is_collapsed_as_split_and_join(space: str) -> None:
    long = "word " * 12
    for text in (f"{long}a{space}b", f"{space}{long}a", f"{long}a{space}", f"{long}a", f"{long}\u00e9{space}b"):
        element = parse_xml(f"<a>{text}</a>".encode())
        assert not len(element) and text_of(element) == " ".join(element.text.split())


def pieces_of(data: bytes, size: int) -> list[bytes]:
    return [data[at:at + size] for at in range(0, len(data), size)] + [b""]


@pytest.mark.parametrize("size", [1, 5, 1 << 20])
def test_a_document_in_pieces_parses_as_whole_and_inert(tmp_path, size: int) -> None:
    """Pieces cut anywhere (inside a tag, a name, an entity reference) give the tree of the whole; an external
    entity is not read there either."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    doc = (f'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file://{secret}">]>'
           '<article lang="en"><title>&x; Cells &amp; <i>tissues</i></title></article>').encode()
    whole, pieced = parse_xml(doc), parse_xml_pieces(pieces_of(doc, size))
    assert text_of(pieced) == text_of(whole) and "TOP SECRET" not in text_of(pieced)
    assert pieced[0].get("lang") is None and pieced.get("lang") == "en"


@pytest.mark.parametrize("data", [b"", b"   \n", b"<unclosed>", b"<a></b>"])
def test_what_is_not_xml_in_pieces_is_an_xml_error(data: bytes) -> None:
    with pytest.raises(XmlError):
        parse_xml_pieces(pieces_of(data, 2))


def test_elements_asked_for_are_handed_over_as_they_end() -> None:
    """With ``on_end`` each element of a tag asked for (any namespace with ``{*}``) reaches the caller once its end
    tag has been fed, while later pieces are still unread (libxml2 may wait for the next piece before it parses the
    end of one: at most one piece late), the root last."""
    doc = (b'<set><item n="1">one</item><x:item xmlns:x="urn:x" n="2">two</x:item><other/>'
           b'<item n="3">three</item></set>')
    pieces = [doc[:30], doc[30:75], doc[75:], b""]
    seen: list[str] = []

    def fed() -> Iterator[bytes]:
        for number, piece in enumerate(pieces):
            seen.append(f"piece {number}")
            yield piece

    def ended(element: etree._Element) -> None:
        seen.append(f"{local_name(element)} {element.get('n') or ''}".strip())
    root = parse_xml_pieces(fed(), tags=("{*}item", "set"), on_end=ended)
    assert local_name(root) == "set" and len(root) == 4
    assert [entry for entry in seen if not entry.startswith("piece")] == ["item 1", "item 2", "item 3", "set"]
    at = seen.index
    assert at("piece 0") < at("item 1") < at("piece 2") and at("item 2") < at("piece 3")


#: Texts each collapsed or not: spaces at either end, two together, other white space, non-ASCII spaces and marks.
_TEXTS = ["", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "a\u2009b", "Åström et\xa0al.", "x" * 60 + "\n",
          "y" * 60, "Straße é", "a <b", "a< b", "<", " <", "</Citation>", "a\u200bb"]


def test_all_collapsed_is_collapse_leaving_every_text_as_it_is() -> None:
    """Never True where one is not; exactly so for texts without a ``<`` (a ``<``, which joins them, may make it
    False where each is)."""
    import itertools

    from pubfetch.extract.xmlsafe import all_collapsed, collapse

    for size in (1, 2, 3):
        for texts in itertools.product(_TEXTS, repeat=size):
            each = all(collapse(text) == text for text in texts)
            if any("<" in text for text in texts):
                assert each or not all_collapsed(list(texts)), texts
            else:
                assert all_collapsed(list(texts)) == each, texts
    assert all_collapsed([]) and all_collapsed(["a b", "c"]) and not all_collapsed(["a b", "c "])
