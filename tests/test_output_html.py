"""Entries as HTML: everything from the page or the user escaped (text, attributes, link targets, only http and https
linked), terms linked to their sources, the webpage layout, and the pieces the publication layout is built of."""

from __future__ import annotations

import dataclasses

from pubfetch.model import MeshTerm, MinedTerm, PartName, PartType, Publication, StringPart, Webpage
from pubfetch.model.entry import FetchState
from pubfetch.model.parts import VisitedSite
from pubfetch.output import html as h
from support.publications import checked_publication


def test_escaping() -> None:
    assert h.escape_html('<script>alert("&")</script>') == '&lt;script&gt;alert("&amp;")&lt;/script&gt;'
    assert h.escape_html_attribute('x" onload="y') == "x&#34;&#32;onload&#61;&#34;y"
    assert h.escape_html_attribute("\u00e9\u4e2d") == "\u00e9\u4e2d"
    assert h.link_html("javascript:alert(1)") == "javascript:alert(1)"
    assert h.link_html("https://a.org/?q=<b>", "<b>") == '<a href="https&#58;&#47;&#47;a&#46;org&#47;&#63;q&#61;' \
                                                         '&#60;b&#62;">&lt;b&gt;</a>'
    assert h.link_html("", "text & more") == "text &amp; more"
    assert h.link_html("https://a.org/", "") == ""
    assert h.paragraphs_html("a<b\n\nc\nd") == "<p>a&lt;b</p><p>c<br>d</p>"


def test_html_terms() -> None:
    mesh = h.part_plain_html(_list(PartName.mesh, [MeshTerm("Neoplasms", True, ""), MeshTerm("A & B", False, "D1")]))
    assert mesh == ('<a href="https&#58;&#47;&#47;www&#46;ncbi&#46;nlm&#46;nih&#46;gov&#47;mesh&#47;&#63;term&#61;'
                    '&#37;22Neoplasms&#37;22">Neoplasms*</a>; <a href="https&#58;&#47;&#47;www&#46;ncbi&#46;nlm&#46;'
                    'nih&#46;gov&#47;mesh&#47;&#63;term&#61;&#37;22D1&#37;22">A &amp; B</a>')
    mined = h.part_plain_html(_list(PartName.efo, [MinedTerm("<x>", 3, "javascript:1"), MinedTerm("y", 0, "")]))
    assert mined == "&lt;x&gt; <small>3</small>; y"
    keywords = h.part_plain_html(_list(PartName.keywords, ["a<b", "c"]))
    assert keywords == "a&lt;b; c"


def _list(name: PartName, items: list) -> object:
    pub = Publication()
    part = pub.part(name)
    part.items = items  # type: ignore[union-attr]
    return part


def test_html_webpage_escapes_everything() -> None:
    page = Webpage(start_url="https://x.org/<a>", final_url="javascript:evil()", content_type="text/<html>",
                   status_code=200, license="<MIT>", language="C&C", title="<title>", content="<p>hi</p>")
    out = h.webpage_html(page)
    assert "<MIT>" not in out and "C&C" not in out and "<title>" not in out and "<p>hi</p>" not in out
    assert '<div><span>Final URL:</span> <span>javascript:evil()</span></div>' in out
    assert '<div><span>Status code:</span> <span><a href="https&#58;&#47;&#47;http&#46;cat&#47;200">200</a>' in out
    assert out.endswith("<br>\n<p>&lt;p&gt;hi&lt;/p&gt;</p>")
    assert h.webpage_plain_html(page) == ('<h2><a href="https&#58;&#47;&#47;x&#46;org&#47;&#60;a&#62;">&lt;title&gt;'
                                          '</a></h2>\n<p>&lt;p&gt;hi&lt;/p&gt;</p>')


PUBMED_1 = '<a href="https&#58;&#47;&#47;www&#46;ncbi&#46;nlm&#46;nih&#46;gov&#47;pubmed&#47;&#63;term&#61;1">1</a>'


def test_ids_link_to_their_databases_and_an_invalid_id_is_not_linked() -> None:
    assert h.ids_html("1", "", "10.1/X") == \
        PUBMED_1 + ', <a href="https&#58;&#47;&#47;doi&#46;org&#47;10&#46;1&#47;x">10.1/X</a>'
    assert h.ids_html("1", "PMC2", "", tab=True) == (
        f"<tr><td>{PUBMED_1}</td><td><a href=\"https&#58;&#47;&#47;www&#46;ncbi&#46;nlm&#46;nih&#46;gov&#47;pmc&#47;"
        'articles&#47;PMC2&#47;">PMC2</a></td><td></td></tr>')
    assert h.ids_html("x", "", "") == "x"


def test_a_part_with_its_provenance() -> None:
    part = StringPart(PartName.title, PartType.pubmed_xml, "https://x/", 1500, "A <title>")
    assert h.part_html(part) == (
        "<h3>Title</h3>\n<p>A &lt;title&gt;</p>\n<div><span>Type:</span> <span>PubMed XML</span></div>\n"
        '<div><span>URL:</span> <span><a href="https&#58;&#47;&#47;x&#47;">https://x/</a></span></div>\n'
        "<div><span>Timestamp:</span> <span>1970-01-01T00:00:01.500Z (1500)</span></div>\n"
        "<div><span>Size:</span> <span>9</span></div>")


def test_state_and_visited_site() -> None:
    assert h.state_html(FetchState(1000, 2, True)) == (
        "<div><span>Fetch time:</span> <span>1970-01-01T00:00:01Z (1000)</span></div>\n"
        "<div><span>Retry counter:</span> <span>2</span></div>\n"
        "<div><span>Fetch exception:</span> <span>true</span></div>")
    out = h.visited_html(VisitedSite("https://a.example/<x>", PartType.doi, "https://doi.org/x", 1000))
    assert out.startswith('<span><a href="https&#58;&#47;&#47;a&#46;example&#47;&#60;x&#62;">https://a.example/&lt;x&gt;'
                          "</a></span>\n<div><span>Type:</span> <span>DOI</span></div>")


def test_publication_layouts_escape_the_content() -> None:
    pub = Publication()
    pub.part(PartName.title).content = "<script>x</script>"  # type: ignore[union-attr]
    for out in (h.publication_html(pub), h.publication_plain_html(pub),
                h.publication_parts_html(pub, [PartName.title], plain=True)):
        assert "<script>" not in out and "&lt;script&gt;" in out


def test_html_document_start() -> None:
    assert h.html_document_start("A & B").startswith("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
                                                     "<title>A &amp; B</title>")


def test_rejected_sites_are_listed_with_their_claimed_ids_linked_and_titles_escaped() -> None:
    page = h.publication_html(checked_publication())
    assert "<div><span>Rejected sites (another paper's):</span></div>" in page
    assert h.link_html("https://doi.org/10.1371/journal.pone.0213978", "doi:10.1371/JOURNAL.PONE.0213978") in page
    assert "<div><span>Unverified sites:</span></div>" in page and "An old page" in page
    pub = checked_publication()
    pub.rejected_sites[0] = dataclasses.replace(pub.rejected_sites[0], doi="")
    page = h.publication_html(pub)
    assert "Assessment on &lt;reticuloendotheliosis&gt; virus &amp; co" in page and "<reticulo" not in page
    assert "Rejected sites" not in h.publication_html(Publication())
