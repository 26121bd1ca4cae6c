"""A PDF's XMP packet: the identifiers that name the document's DOI (PRISM, Crossmark, pdfx, Dublin Core), read
without resolving entities, and nothing from a packet that cannot be read; metadata text values without markup."""

from __future__ import annotations

from pubfetch.extract.pdf_xmp import strip_markup, xmp_dois

PACKET = b"""<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
 <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/"
   xmlns:crossmark="http://crossref.org/crossmark/1.0/" xmlns:pdfx="http://ns.adobe.com/pdfx/1.3/">
  <dc:identifier>doi:10.1371/journal.pone.0107412</dc:identifier>
  <prism:doi>10.1371/journal.pone.0107412</prism:doi>
  <crossmark:DOI>10.1371/journal.pone.0107412</crossmark:DOI>
  <pdfx:doi>https://doi.org/10.1371/journal.pone.0107412</pdfx:doi>
  <dc:relation>doi:10.1000/cited.elsewhere</dc:relation>
  <dc:title><rdf:Alt><rdf:li xml:lang="x-default">A title naming 10.1000/not.an.identifier</rdf:li></rdf:Alt></dc:title>
 </rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>"""


def test_the_identifier_properties_name_the_documents_doi_once() -> None:
    assert xmp_dois(PACKET) == ["10.1371/JOURNAL.PONE.0107412"]


def test_a_packet_that_cannot_be_read_names_nothing() -> None:
    assert xmp_dois(b"<x:xmpmeta><broken") == []
    assert xmp_dois(b"not xml at all") == []
    entity = b'<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/hostname">]><x><prism:doi xmlns:prism="p">&e;</prism:doi></x>'
    assert xmp_dois(entity) == []


def test_metadata_text_loses_its_markup_and_entities() -> None:
    assert strip_markup("Nature Communications, <i>doi</i>:10.1038/x &amp; more\n") == \
        "Nature Communications, doi:10.1038/x & more"
    assert strip_markup("a < b") == "a < b"
