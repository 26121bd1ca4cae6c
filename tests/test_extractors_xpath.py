"""Tests for pubfetch.metadata.extractors.xpath: LOCKSS' XML DOM extractor, XPath expressions to typed raw values."""

from __future__ import annotations

import pytest

from pubfetch.metadata import fields as mf
from pubfetch.metadata.extractors import (
    MetadataTarget,
    XPathXmlExtractor,
)
from support.cached_urls import cu

ANY = MetadataTarget()


def test_xpath_extractor_value_types_and_lower_cased_raw_keys() -> None:
    extractor = XPathXmlExtractor(
        {"/Record/Title": mf.FIELD_ARTICLE_TITLE, "//Author": mf.FIELD_AUTHOR},
        xpaths={"/Record/Title": "text", "//Author": "text", "count(//Author)": "number", "/Record/Vol": "number",
                "/Record/Ratio": "number", "/Record/Title/i": "number", "boolean(//Free)": "boolean",
                "//x:Note": "node", "string(/Record/@id)": "text"},
        namespaces={"x": "urn:notes"})
    data = ("<Record id='r1' xmlns:n='urn:notes'><Title>A <i>b</i> c</Title><Author>X</Author><Author>Y</Author>"
            "<Vol> 12 </Vol><Ratio>2.5</Ratio><n:Note>see <b>this</b></n:Note></Record>")
    (am,) = extractor.extract(ANY, cu(data, "text/xml"))
    assert am.raw_items() == [
        ("/record/title", ["A b c"]), ("//author", ["X", "Y"]), ("count(//author)", ["2"]), ("/record/vol", ["12"]),
        ("/record/ratio", ["2.5"]), ("boolean(//free)", ["false"]),
        ("//x:note", ['<n:Note xmlns:n="urn:notes">see <b>this</b></n:Note>']), ("string(/record/@id)", ["r1"]),
    ]
    assert am.to_json()["cooked"] == {"article.title": "A b c", "author": ["X", "Y"]}
    (broken,) = extractor.extract(ANY, cu("<Record>", "text/xml"))
    assert broken.is_empty() and broken.raw_size() == 0
    with pytest.raises(ValueError, match="needs xpaths"):
        XPathXmlExtractor()
    with pytest.raises(ValueError, match="value type must be one of text, node, number, boolean"):
        XPathXmlExtractor(xpaths={"/a": "string"})
    with pytest.raises(ValueError, match="invalid XPath '/a\\['"):
        XPathXmlExtractor(xpaths={"/a[": "text"})


def test_xpath_text_is_the_dom_text_content() -> None:
    """LOCKSS' XmlDomMetadataExtractor stores getTextContent: mixed-content pieces joined without added blanks,
    trailing blanks kept."""
    extractor = XPathXmlExtractor(xpaths={"/root/second": "text", "/root/trail": "text", "string(/root/trail)": "text"})
    data = ("<root><second>SecondValue<a>ThirdValue</a><b>MoreValue</b>Second</second>"
            "<trail>value with blank </trail></root>")
    (am,) = extractor.extract(ANY, cu(data, "text/xml"))
    assert am.get_raw("/root/second") == "SecondValueThirdValueMoreValueSecond"
    assert am.get_raw("/root/trail") == "value with blank "
    assert am.get_raw("string(/root/trail)") == "value with blank "
