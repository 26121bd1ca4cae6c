"""The links part of every recorded JATS full text: what the markup says is a link equals the ``ext-link``, ``uri`` and
``related-object`` elements read here independently (plain lxml, no pubfetch code), and for four papers everything
found equals what a person reading them lists; plus the markup's kinds on a hand-made article."""

from __future__ import annotations

import json
from pathlib import Path

from lxml import etree

from pubfetch.extract.jats import parse_jats

XLINK = "{http://www.w3.org/1999/xlink}href"
#: where links are looked for, and what is left out (the reference list, replies and reviews)
SCOPES = ("front/article-meta/abstract", "front/article-meta/trans-abstract", "front/article-meta/author-notes",
          "front/article-meta/funding-group", "body", "back", "floats-group")
LEFT_OUT = ("ref-list", "sub-article", "response")

#: read by a person (abstract, body, back matter, notes, funding): (kind, value, the heading it stands under)
BY_HAND: dict[str, set[tuple[str, str, str]]] = {
    "files/europepmc_fulltext/PMC8118396.xml": {
        ("doi", "10.1080/23802359.2021.1911705", "Author notes"),  # "Supplemental data ... accessed here"
        ("url", "https://ppc.nwafu.edu.cn/english/aboutus/index.htm", ""),  # the voucher's museum
        ("insdc", "MW342606", ""),  # "submitted to GenBank under accession number MW342606"
        ("doi", "10.1080/23802359.2021.1911705", ""),  # "Supplementary Table S1", linked
        ("url", "https://www.ncbi.nlm.nih.gov", "Data availability statement"),
        ("insdc", "MW342606", "Data availability statement"),  # "GenBank of NCBI at ..., reference number MW342606"
        ("bioproject", "PRJNA707788", "Data availability statement"),
        ("sra", "SRR13907305", "Data availability statement"),
        ("bioproject", "SAMN18219192", "Data availability statement"),
    },
    "files/pmc_efetch/PMC3299399.xml": {
        ("url", "http://www.ncbi.nlm.nih.gov/pubmed/", "Methods"),
        ("url", "http://www.uccs.edu/~faculty/lbecker/", "Methods"),  # written with U+223C, linked with "~"
        ("url", "http://www.lyonsmorris.com/ma1/index.cfm", "Methods"),
        ("url", "http://www.meta-analysis.com", "Methods"),
        ("grant", "SFI08/IN.1/B1916-Corvin", "Acknowledgements"),  # "a Science Foundation Ireland research award"
    },
    "files/europepmc_fulltext/PMC8164761.xml": {
        ("doi", "10.1186/s13007-021-00757-y", "Supplementary Information"),  # in the abstract
        ("grant", "2019157B10-2121-0101", "Funding"),
        ("grant", "PJ016185022021", "Funding"),
    },
    "files/europepmc_fulltext/PMC3320746.xml": {
        ("url", "http://www.uniprot.org/",
         "Application of Acquired Power Analysis Data to Material Gathered in a Clinical Trial"),
        ("url", "http://pubs.acs.org", "Supporting Information Available"),
        ("grant", "C147/A12328", "Acknowledgments"),  # Cancer Research UK "Grant Code"
        ("grant", "C357/A12197", "Acknowledgments"),
        ("grant", "C153/A7727", "Acknowledgments"),  # Feasibility Study Committee
        ("grant", "08004", "Acknowledgments"),  # "LRF code 08004"
    },
}


def _bodies(corpus: Path) -> list[str]:
    with open(corpus / "manifest.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return sorted(r["body"] for r in rows
                  if r["resource"] in ("europepmc_fulltext", "pmc_efetch") and r["status"] == 200 and r.get("body"))


def _marked_elements(data: bytes) -> set[tuple[str, str]]:
    """(kind, value) of every link element in scope: its target, else its text; a doi.org target is a DOI."""
    article = etree.fromstring(data)
    if article.tag != "article":
        article = next(article.iter("article"))
    out = set()
    for path in SCOPES:
        for top in article.xpath(path):
            for el in top.iter("ext-link", "uri", "related-object"):
                if any(a.tag in LEFT_OUT for a in el.iterancestors()):
                    continue
                value = (el.get(XLINK) or " ".join("".join(el.itertext()).split())).strip()
                for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/"):
                    if value.startswith(prefix):
                        out.add(("doi", value[len(prefix):]))
                        break
                else:
                    out.add(("url", value))
    return out


def test_the_marked_links_are_the_link_elements_of_every_recorded_full_text(corpus_dir: Path) -> None:
    bodies = _bodies(corpus_dir)
    assert len(bodies) == 8
    with_links = 0
    for body in bodies:
        data = (corpus_dir / body).read_bytes()
        (record,) = parse_jats(data)
        marked = {(link.kind, link.value) for link in record.text_links if link.marked and link.kind != "grant"}
        assert marked == _marked_elements(data), body
        with_links += bool(marked)
    assert with_links >= 6


def test_four_papers_give_what_a_person_reading_them_finds(corpus_dir: Path) -> None:
    for body, expected in BY_HAND.items():
        (record,) = parse_jats((corpus_dir / body).read_bytes())
        found = {(link.kind, link.value, link.section_path[-1] if link.section_path else "")
                 for link in record.text_links}
        assert found == expected, body
        assert all(link.sentence for link in record.text_links)


ARTICLE = b"""<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>
<abstract><p>Trial NCT01234567.</p></abstract>
<funding-group><award-group><funding-source>NIH</funding-source><award-id>R01 GM1</award-id></award-group></funding-group>
<permissions><license><ext-link ext-link-type="uri" xlink:href="https://creativecommons.org/licenses/by/4.0/"
>CC BY</ext-link></license></permissions>
</article-meta></front>
<body><sec><title>Methods</title><sec><title>Data</title>
<p>The structure <ext-link ext-link-type="pdb" xlink:href="https://www.rcsb.org/structure/1ABC">1ABC</ext-link> and
sequence <ext-link ext-link-type="gen" xlink:href="https://www.ncbi.nlm.nih.gov/nuccore/X58356">X58356</ext-link>
were used with <related-object document-id="GSE12345" document-id-type="geo">the series</related-object>;
the word 2XYZ is no structure here.</p>
<table-wrap><table><tr><td>Reads at SRR1234567</td></tr></table></table-wrap>
</sec></sec></body>
<back><ack><p>Thanks to <uri>https://github.com/x/tool</uri>.</p></ack>
<ref-list><ref><mixed-citation><ext-link ext-link-type="uri" xlink:href="https://ref.org/x">x</ext-link>
</mixed-citation></ref></ref-list></back></article>"""


def test_the_markup_says_the_kind_and_the_sections_say_the_path() -> None:
    (record,) = parse_jats(ARTICLE)
    assert [(link.kind, link.value, link.section_path, link.marked) for link in record.text_links] == [
        ("clinicalTrial", "NCT01234567", ("Abstract",), False),
        ("grant", "R01 GM1", ("Funding",), True),
        ("pdb", "1ABC", ("Methods", "Data"), True),
        ("insdc", "X58356", ("Methods", "Data"), True),
        ("geo", "GSE12345", ("Methods", "Data"), True),
        ("sra", "SRR1234567", ("Methods", "Data"), False),
        ("url", "https://github.com/x/tool", ("Acknowledgements",), True),
    ]
    pdb = record.text_links[2]
    assert pdb.registry == "pdb" and pdb.sentence.startswith("The structure 1ABC and sequence X58356")
    assert parse_jats(ARTICLE, rich_parts=False)[0].text_links == []
