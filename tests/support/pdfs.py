"""PDF files written by hand for the tests: the smallest files that exercise one feature of the PDF reader.

Two writers: :func:`make_pdf` gives pages of text with an Info dictionary, an XMP stream and RC4 encryption (enough
for pdfminer.six and pdfium to have something to read); :func:`pdf_of` serialises raw objects as given, for the
hostile files whose structure is the point.
"""

from __future__ import annotations

import hashlib
import re
import struct
from io import BytesIO

from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import resolve1

from pubfetch.extract.pdf_xref import PdfDocument

_PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")
_FILE_ID = bytes.fromhex("0123456789ABCDEF0123456789ABCDEF")
_PERMISSIONS = -44


def _rc4(key: bytes, data: bytes) -> bytes:
    state = list(range(256))
    j = 0
    for i in range(256):
        j = (j + state[i] + key[i % len(key)]) % 256
        state[i], state[j] = state[j], state[i]
    out = bytearray()
    i = j = 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + state[i]) % 256
        state[i], state[j] = state[j], state[i]
        out.append(byte ^ state[(state[i] + state[j]) % 256])
    return bytes(out)


def _padded(password: bytes) -> bytes:
    return (password + _PAD)[:32]


def _rc4_40_security(user_password: bytes) -> tuple[bytes, bytes, bytes]:
    """Standard security handler V1/R2 (PDF 1.7 algorithms 3.2-3.4), owner password = user password: (O, U, key)."""
    owner_key = hashlib.md5(_padded(user_password)).digest()[:5]  # the PDF format mandates MD5
    owner_entry = _rc4(owner_key, _padded(user_password))
    digest = hashlib.md5(_padded(user_password) + owner_entry + struct.pack("<i", _PERMISSIONS) + _FILE_ID).digest()
    key = digest[:5]
    return owner_entry, _rc4(key, _PAD), key


def build_pdf(
    objects: list[tuple[str, list[bytes], bytes | None]],
    *,
    root: int,
    info: int | None = None,
    user_password: bytes | None = None,
) -> bytes:
    """Serialise numbered objects (1..n) with an xref table.

    Each object is (dictionary template, strings, stream data): ``{0}``, ``{1}``... in the template are replaced by the
    strings written as hex strings, so that they can be encrypted per object like the stream data.
    """
    key = None
    encrypt_ref = None
    objects = list(objects)
    if user_password is not None:
        owner_entry, user_entry, key = _rc4_40_security(user_password)
        objects.append(
            (
                (
                    f"<< /Filter /Standard /V 1 /R 2 /Length 40 /P {_PERMISSIONS} "
                    f"/O <{owner_entry.hex()}> /U <{user_entry.hex()}> >>"
                ),
                [],
                None,
            )
        )
        encrypt_ref = len(objects)
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, (template, strings, stream) in enumerate(objects, start=1):
        object_key = None
        if key is not None and number != encrypt_ref:
            object_key = hashlib.md5(key + number.to_bytes(3, "little") + b"\x00\x00").digest()[:10]

        def crypt(data: bytes, object_key: bytes | None = object_key) -> bytes:
            return _rc4(object_key, data) if object_key else data

        body = template.format(*(f"<{crypt(s).hex()}>" for s in strings)).encode("latin-1")
        if stream is not None:
            data = crypt(stream)
            body = body.removesuffix(b">>") + f" /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream"
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    trailer = f"<< /Size {len(objects) + 1} /Root {root} 0 R /ID [<{_FILE_ID.hex()}> <{_FILE_ID.hex()}>]"
    if info:
        trailer += f" /Info {info} 0 R"
    if encrypt_ref:
        trailer += f" /Encrypt {encrypt_ref} 0 R"
    out += f"trailer\n{trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def make_pdf(
    pages: list[str],
    *,
    info: dict[str, bytes] | None = None,
    xmp: bytes | None = None,
    user_password: bytes | None = None,
) -> bytes:
    """A PDF with one line of Helvetica text per page, and optionally an Info dictionary and an XMP stream."""
    first_page = 4
    kids = " ".join(f"{first_page + 2 * i} 0 R" for i in range(len(pages)))
    catalog = "<< /Type /Catalog /Pages 2 0 R"
    objects: list[tuple[str, list[bytes], bytes | None]] = [
        ("", [], None),  # catalog, filled in below
        (f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>", [], None),
        ("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", [], None),
    ]
    for i, text in enumerate(pages):
        content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
        page = (
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {first_page + 2 * i + 1} 0 R >>"
        )
        objects += [(page, [], None), ("<< >>", [], content)]
    info_ref = None
    if info:
        keys = list(info)
        objects.append(
            ("<< " + " ".join(f"/{k} {{{n}}}" for n, k in enumerate(keys)) + " >>", list(info.values()), None)
        )
        info_ref = len(objects)
    if xmp is not None:
        objects.append(("<< /Type /Metadata /Subtype /XML >>", [], xmp))
        catalog += f" /Metadata {len(objects)} 0 R"
    objects[0] = (catalog + " >>", [], None)
    return build_pdf(objects, root=1, info=info_ref, user_password=user_password)


def pdf_of(objects: list[bytes]) -> bytes:
    """A PDF file with these objects (1 is the catalog) and a correct cross-reference table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def stream(data: bytes, extra: bytes = b"") -> bytes:
    """A stream object of ``data``; ``extra`` goes into its dictionary (a /Filter)."""
    return b"<< /Length %d %s>>\nstream\n" % (len(data), extra) + data + b"\nendstream"


#: Objects 1 and 2 of a one-page file: the catalog and the page tree, whose page is object 3.
PAGE_TREE = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"]


#: An XMP packet with a title in two languages (markup in the default one), subjects and a description
XMP = b"""<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
   <pdf:Producer>hand-written</pdf:Producer>
  </rdf:Description>
  <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
   <dc:title><rdf:Alt>
    <rdf:li xml:lang="de">Ein Titel</rdf:li>
    <rdf:li xml:lang="x-default">An XMP title with <i>markup</i></rdf:li>
   </rdf:Alt></dc:title>
   <dc:subject><rdf:Bag>
    <rdf:li>Genomics</rdf:li><rdf:li> Proteomics </rdf:li><rdf:li>Genomics</rdf:li><rdf:li> </rdf:li>
   </rdf:Bag></dc:subject>
   <dc:description><rdf:Alt>
    <rdf:li xml:lang="x-default">&lt;p&gt;An &lt;b&gt;abstract&lt;/b&gt; &amp;amp; more&lt;/p&gt;</rdf:li>
   </rdf:Alt></dc:description>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"""

#: An info dictionary in UTF-16 and PDFDocEncoding, with markup and repeated keywords
INFO = {
    "Title": b"\xfe\xff" + "Ünïcode title – UTF-16".encode("utf-16-be"),
    "Keywords": b"a, b; c|d; a, ,b",
    "Subject": b"<p>An <i>abstract</i> &amp; more \x84 PDFDocEncoding</p>",
    "Author": b"Someone",
}


def incremental_update(data: bytes, info: bytes) -> bytes:
    """``data`` (a :func:`make_pdf` file) with an update appended that replaces its info dictionary by ``info``."""
    size = int(re.findall(rb"/Size (\d+)", data)[-1])
    previous = int(re.findall(rb"startxref\n(\d+)", data)[-1])
    offset = len(data)
    update = b"%d 0 obj\n%s\nendobj\n" % (size, info)
    xref = offset + len(update)
    update += b"xref\n0 1\n0000000000 65535 f \n%d 1\n%010d 00000 n \n" % (size, offset)
    update += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (
        size + 1, size, previous, xref)
    return data + update


def assert_same_document(data: bytes) -> PdfDocument:
    """The on-demand document gives pdfminer.six's positions, trailers, catalog and info."""
    theirs = PDFDocument(PDFParser(BytesIO(data)), password="")
    ours = PdfDocument(PDFParser(BytesIO(data)), data, password="")
    assert len(ours.xrefs) == len(theirs.xrefs)
    for mine, reference in zip(ours.xrefs, theirs.xrefs, strict=True):
        ids = sorted(reference.get_objids())
        assert ids and sorted(mine.get_objids()) == ids
        assert [mine.get_pos(i) for i in ids] == [reference.get_pos(i) for i in ids]
        assert mine.get_trailer().keys() == reference.get_trailer().keys() - {"Info"}
    # references compare by identity: their text names the object
    assert repr(ours.catalog) == repr(theirs.catalog)
    assert repr([resolve1(info) for info in ours.info]) == repr(theirs.info)
    return ours
