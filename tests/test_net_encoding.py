"""Character encodings of fetched pages: BOM, Content-Type charset, in-document declarations, detection."""

from __future__ import annotations

import codecs

import pytest

from pubfetch.net.encoding import (
    charset_from_content_type,
    charset_from_document,
    choose_encoding,
    decode_body,
    detect_charset,
    normalise_charset,
)
from pubfetch.net.outcome import OutcomeKind
from support.loopback import Reply
from support.netsupport import FastServer as LoopbackServer
from support.netsupport import make_client

FRENCH = ("<html><head>{decl}<title>Études génomiques</title></head><body><p>Les données déposées à l'Institut ont été "
          "vérifiées. Größe, Übersicht, naïve café, “quoted” – dash.</p></body></html>")
TEXT = FRENCH.format(decl="")
RUSSIAN = ("<html><body><p>Геномные данные были проверены в институте. Это пример текста на русском языке, "
           "достаточно длинный для распознавания.</p></body></html>")


def fetch(body: bytes, content_type: str | None) -> tuple[str | None, str | None, str | None]:
    with LoopbackServer({"/page": Reply(200, body, content_type)}) as server:
        r = make_client().get(server.url("/page"))
    assert r.kind is OutcomeKind.OK
    return r.text, r.encoding, r.encoding_source


# ---------------------------------------------------------------------------------------------------- over HTTP


def test_utf8_declared_in_header() -> None:
    assert fetch(TEXT.encode("utf-8"), "text/html; charset=UTF-8") == (TEXT, "utf-8", "header")


def test_latin1_declared_in_header_decodes_as_windows_1252() -> None:
    """ISO-8859-1 labels mean windows-1252 (WHATWG), so the curly quotes and dash survive."""
    body = TEXT.encode("cp1252")
    assert fetch(body, "text/html; charset=ISO-8859-1") == (TEXT, "cp1252", "header")
    assert fetch(body, 'text/html; charset="latin1"') == (TEXT, "cp1252", "header")


def test_meta_charset_without_header_charset() -> None:
    page = FRENCH.format(decl='<meta charset="iso-8859-1">')
    assert fetch(page.encode("cp1252"), "text/html") == (page, "cp1252", "document")


def test_meta_http_equiv_charset() -> None:
    page = FRENCH.format(decl='<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">')
    assert fetch(page.encode("cp1252"), "text/html") == (page, "cp1252", "document")


def test_xml_declaration() -> None:
    xml = '<?xml version="1.0" encoding="ISO-8859-1"?><article><title>Études à Århus</title></article>'
    assert fetch(xml.encode("latin-1"), "application/xml") == (xml, "cp1252", "document")


def test_header_charset_wins_over_meta() -> None:
    page = FRENCH.format(decl='<meta charset="iso-8859-1">')
    assert fetch(page.encode("utf-8"), "text/html; charset=utf-8") == (page, "utf-8", "header")


def test_unknown_header_charset_falls_through_to_the_document() -> None:
    page = FRENCH.format(decl='<meta charset="utf-8">')
    assert fetch(page.encode("utf-8"), "text/html; charset=x-no-such-charset") == (page, "utf-8", "document")


def test_bom_wins_over_header() -> None:
    assert fetch(codecs.BOM_UTF8 + TEXT.encode("utf-8"), "text/html; charset=iso-8859-1") == (TEXT, "utf-8", "bom")
    assert fetch(codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"), "text/html") == (TEXT, "utf-16-le", "bom")


def test_undeclared_utf8_is_detected() -> None:
    assert fetch(TEXT.encode("utf-8"), "text/html") == (TEXT, "utf-8", "detected")


def test_undeclared_latin1_is_detected_as_windows_1252() -> None:
    """A bare detector calls this windows-1250 and turns "naïve" into "naďve"; Western pages default to 1252."""
    assert fetch(TEXT.encode("cp1252"), "text/html") == (TEXT, "cp1252", "detected")
    assert fetch(TEXT.encode("cp1252"), None) == (TEXT, "cp1252", "detected")


def test_undeclared_latin1_html_served_as_text_plain() -> None:
    assert fetch(TEXT.encode("latin-1", "replace"), "text/plain")[1:] == ("cp1252", "detected")


def test_undeclared_cyrillic_is_detected() -> None:
    assert fetch(RUSSIAN.encode("cp1251"), "text/html") == (RUSSIAN, "cp1251", "detected")


def test_undeclared_utf16_without_bom() -> None:
    assert fetch(TEXT.encode("utf-16-le"), "text/html") == (TEXT, "utf-16-le", "detected")
    assert fetch(TEXT.encode("utf-16-be"), "text/html") == (TEXT, "utf-16-be", "detected")


def test_wrong_declaration_gives_replacement_characters_not_an_error() -> None:
    text, encoding, source = fetch("<p>naïve</p>".encode("cp1252"), "text/html; charset=utf-8")
    assert (text, encoding, source) == ("<p>na\ufffdve</p>", "utf-8", "header")


# ---------------------------------------------------------------------------------------------------- functions


@pytest.mark.parametrize(
    ("label", "codec"),
    [("UTF-8", "utf-8"), ("utf8", "utf-8"), ("ISO-8859-1", "cp1252"), ("latin1", "cp1252"), ("US-ASCII", "cp1252"),
     ("windows-1252", "cp1252"), ("iso-8859-9", "cp1254"), ("gb2312", "gb18030"), ("GBK", "gb18030"),
     ("Shift_JIS", "shift_jis"), ("x-sjis", "shift_jis"), ("euc-kr", "cp949"), ("'koi8-r'", "koi8-r"),
     ("x-user-defined", None), ("no-such-thing", None), ("", None), (None, None)],
)
def test_normalise_charset(label: str | None, codec: str | None) -> None:
    assert normalise_charset(label) == codec


def test_charset_from_content_type() -> None:
    assert charset_from_content_type("text/html; charset=utf-8") == "utf-8"
    assert charset_from_content_type("text/html;charset='Windows-1251'") == "cp1251"
    assert charset_from_content_type("text/html") is None
    assert charset_from_content_type(None) is None


def test_charset_from_document() -> None:
    assert charset_from_document(b'<html><head><meta charset=utf-8>') == "utf-8"
    assert charset_from_document(b'<?xml version="1.0" encoding="UTF-16"?><a/>') == "utf-8"  # readable as ASCII
    assert charset_from_document(b"<html><head><title>none</title>") is None
    assert charset_from_document(b" " * 5000 + b'<meta charset="koi8-r">') is None  # too deep to count


def test_detect_charset_of_short_latin1_text_is_not_utf16() -> None:
    assert detect_charset("<p>short é</p>".encode("latin-1")) == ("cp1252", "detected")


def test_choose_encoding_order() -> None:
    body = b'<meta charset="koi8-r"><p>x</p>'
    assert choose_encoding("text/html; charset=utf-8", codecs.BOM_UTF8 + body) == ("utf-8", "bom")
    assert choose_encoding("text/html; charset=cp1251", body) == ("cp1251", "header")
    assert choose_encoding("text/html", body) == ("koi8-r", "document")
    assert choose_encoding("text/html", b"<p>x</p>") == ("utf-8", "detected")


def test_decode_body_strips_the_bom() -> None:
    assert decode_body(None, codecs.BOM_UTF16_BE + "<p>ä</p>".encode("utf-16-be")) == ("<p>ä</p>", "utf-16-be", "bom")
