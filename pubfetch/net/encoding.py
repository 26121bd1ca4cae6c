"""Choosing the character encoding of a textual response.

Order: a byte-order mark (it describes the bytes themselves, so browsers let it override the header), then the charset
of the Content-Type header, then what the document declares in its first bytes (``<meta charset>``,
``<meta http-equiv="Content-Type">`` or the XML declaration), then detection: strict UTF-8 first (cheap and nearly
never wrong when it succeeds), then windows-1252 unless charset_normalizer (or chardet) finds another encoding a better
fit.

Labels are mapped as browsers map them (WHATWG Encoding): ISO-8859-1, Latin-1 and US-ASCII mean windows-1252, because
pages labelled so routinely contain windows-1252 quotes and dashes, which latin-1 would turn into control characters.
"""

from __future__ import annotations

import codecs
import logging
import re
from typing import Final

logger = logging.getLogger(__name__)

#: How far into the document a declaration is looked for (HTML says 1024 bytes; real pages put scripts first).
_SNIFF_BYTES: Final = 4096
#: How much of an undeclared body the statistical detector sees (it is slow on megabytes).
_DETECT_BYTES: Final = 256 * 1024

_BOMS: Final = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE, whose BOM is its prefix
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

#: Keys are Python codec names (codecs.lookup(...).name); values what browsers decode those labels as.
_WHATWG_ALIASES: Final = {
    "iso8859-1": "cp1252",
    "ascii": "cp1252",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "tis-620": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "euc_kr": "cp949",
}
_EXTRA_LABELS: Final = {"x-sjis": "shift_jis", "x-user-defined": None, "unicode": "utf-16"}

_CHARSET_PARAM: Final = re.compile(r"""charset\s*=\s*["']?\s*([^\s"';,]+)""", re.IGNORECASE)
_META_CHARSET: Final = re.compile(rb"""<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.IGNORECASE)
_XML_DECL: Final = re.compile(rb"""^<\?xml\b[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:\-]+)["']""")


def normalise_charset(label: str | None) -> str | None:
    """Python codec name for a charset label, with browser aliases applied; ``None`` if unknown."""
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    if label in _EXTRA_LABELS:
        label = _EXTRA_LABELS[label] or ""
        if not label:
            return None
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    return _WHATWG_ALIASES.get(name, name)


def charset_from_bom(body: bytes) -> str | None:
    """Encoding named by a byte-order mark at the start of the body."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name
    return None


def charset_from_content_type(content_type: str | None) -> str | None:
    """Known charset of a Content-Type header (``None`` if absent or unknown)."""
    if not content_type:
        return None
    match = _CHARSET_PARAM.search(content_type)
    return normalise_charset(match.group(1)) if match else None


def charset_from_document(body: bytes) -> str | None:
    """Charset declared in the first bytes of an HTML or XML document.

    A UTF-16/32 declaration inside a document readable as ASCII cannot be true (the declaration itself would be
    unreadable), so it is taken as UTF-8, as browsers do.
    """
    head = body[:_SNIFF_BYTES]
    match = _XML_DECL.search(head.lstrip()) or _META_CHARSET.search(head)
    if not match:
        return None
    name = normalise_charset(match.group(1).decode("ascii", "replace"))
    if name and name.startswith(("utf-16", "utf-32")):
        return "utf-8"
    return name


def detect_charset(body: bytes) -> tuple[str, str]:
    """Guess the encoding of an undeclared body; returns ``(codec, "detected" | "default")``.

    Strict UTF-8 first. Otherwise windows-1252, the browsers' fallback for Western pages, unless the statistical
    detector finds it a worse fit than its own best guess: a detector alone confuses Western code pages with each
    other (it reads a Latin-1 "naïve" as windows-1250 "naďve", equally "clean" to it) and calls short samples UTF-16.
    """
    wide = _utf16_by_nuls(body[:_SNIFF_BYTES])
    if wide:
        return wide, "detected"
    try:
        body.decode("utf-8")
        return "utf-8", "detected"
    except UnicodeDecodeError:
        pass
    sample = body[:_DETECT_BYTES]
    western = _decodes(sample, "cp1252")
    guess = _statistical_guess(sample, prefer_western=western)
    if guess:
        return guess, "detected"
    return ("cp1252" if western else "utf-8"), "default"


def _utf16_by_nuls(head: bytes) -> str | None:
    """UTF-16 without a BOM, recognised by its NUL bytes: markup is mostly ASCII, whose UTF-16 code units have one
    NUL byte, always on the same side. (Valid UTF-8 too, so this must come before the UTF-8 check.)"""
    pairs = len(head) // 2
    if pairs < 8:
        return None
    even = sum(1 for i in range(0, 2 * pairs, 2) if head[i] == 0)
    odd = sum(1 for i in range(1, 2 * pairs, 2) if head[i] == 0)
    if odd >= pairs * 0.4 and even <= pairs * 0.05:
        return "utf-16-le"
    if even >= pairs * 0.4 and odd <= pairs * 0.05:
        return "utf-16-be"
    return None


def _decodes(data: bytes, codec: str) -> bool:
    try:
        data.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


def _wide(name: str | None) -> bool:
    return bool(name) and str(name).replace("_", "-").startswith(("utf-16", "utf-32"))


def _statistical_guess(sample: bytes, *, prefer_western: bool) -> str | None:
    """charset_normalizer (requests' own dependency) or chardet, whichever is installed.

    UTF-16/32 guesses are dropped for a sample without NUL bytes: markup in those encodings is full of them.
    With ``prefer_western``, windows-1252 wins when it looks no messier than the best guess.
    """
    no_nul = b"\x00" not in sample
    try:
        import charset_normalizer
    except ImportError:
        charset_normalizer = None  # type: ignore[assignment]
    if charset_normalizer is not None:
        matches = [m for m in charset_normalizer.from_bytes(sample) if not (no_nul and _wide(m.encoding))]
        best = matches[0] if matches else None
        if prefer_western:
            western = charset_normalizer.from_bytes(sample, cp_isolation=["cp1252"]).best()
            if western is not None and (best is None or western.chaos <= best.chaos):
                return "cp1252"
        return normalise_charset(best.encoding) if best is not None else None
    try:
        import chardet
    except ImportError:
        return None
    found = chardet.detect(sample).get("encoding")
    if no_nul and _wide(found):
        return None
    return normalise_charset(found)


def choose_encoding(content_type: str | None, body: bytes) -> tuple[str, str]:
    """Codec for the body and where it came from: ``bom``, ``header``, ``document``, ``detected`` or ``default``."""
    for source, name in (
        ("bom", charset_from_bom(body)),
        ("header", charset_from_content_type(content_type)),
        ("document", charset_from_document(body)),
    ):
        if name:
            return name, source
    return detect_charset(body)


def decode_body(content_type: str | None, body: bytes) -> tuple[str, str, str]:
    """Decode a textual body: returns ``(text, codec, source)``; undecodable bytes become U+FFFD, never an error."""
    name, source = choose_encoding(content_type, body)
    if source == "bom":
        # the "-sig"/BOM-aware codecs drop the mark; for the explicit-endian ones strip it by hand
        bom = next(b for b, n in _BOMS if n == name)
        body = body[len(bom):]
    text = body.decode(name, errors="replace")
    logger.debug("decoded %d bytes as %s (%s)", len(body), name, source)
    return text, name, source
