"""``--format chunks``: passages of at most 2,000 characters that end where sentences end, each with the paper's IDs,
its section path from the sections part and its place, read from a recorded full text and from a long paragraph."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from pubfetch.extract.jats import parse_jats
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import PartType
from pubfetch.model.merge import apply_record
from pubfetch.model.publication import Publication
from pubfetch.model.rich import RichName, Section
from pubfetch.model.webpage import Webpage
from pubfetch.output.chunks import MAX_CHARS, entry_chunks
from pubfetch.output.writer import EntryWriter

FIELDS = ["pmid", "pmcid", "doi", "section_path", "index", "text"]
_ENDS = re.compile(r"[.!?][\"')\]\u2019\u201d]*$")


def _publication(data: bytes) -> Publication:
    (record,) = parse_jats(data)
    pub = Publication()
    apply_record(pub, record, PartType.europepmc_xml, "https://x/fullTextXML", FetcherArgs())
    return pub


def test_a_recorded_full_text_reads_as_passages_with_their_section_paths(corpus_dir: Path) -> None:
    pub = _publication((corpus_dir / "files/europepmc_fulltext/PMC8158497.xml").read_bytes())
    out = io.StringIO()
    with EntryWriter(out, "chunks") as writer:
        writer.write(pub)
    chunks = [json.loads(line) for line in out.getvalue().splitlines()]
    assert chunks == entry_chunks(pub) and len(chunks) > 20
    assert all(list(c) == FIELDS for c in chunks)
    assert {(c["pmid"], c["pmcid"], c["doi"]) for c in chunks} == {
        (pub.pmid.content, pub.pmcid.content, pub.doi.content)}
    assert [c["index"] for c in chunks] == list(range(len(chunks)))
    assert all(0 < len(c["text"]) <= MAX_CHARS for c in chunks)
    assert chunks[0]["section_path"] == ["Title"] and chunks[1]["section_path"] == ["Abstract"]
    titles = {s.title for s in pub.sections.items}
    body = [c for c in chunks if c["section_path"] not in (["Title"], ["Abstract"])]
    assert body and all(c["section_path"] and set(c["section_path"]) <= titles for c in body)
    assert ["2. Materials and Methods", "2.1. Sampling Area"] in [c["section_path"] for c in body]
    # every word of the sections is in the passages, in order
    words = " ".join(" ".join(s.text.split()) for s in pub.sections.items if s.text)
    assert " ".join(c["text"] for c in body) == words


def test_a_long_paragraph_is_cut_where_its_sentences_end() -> None:
    sentences = [f"Sentence number {i} says something about the method that was used in the study." for i in range(90)]
    pub = Publication()
    pub.set_pmid("123", PartType.pubmed_xml, "", FetcherArgs())
    pub.set_rich(RichName.sections, [Section("Methods", 1, " ".join(sentences)), Section("Design", 2, "Short.")],
                 PartType.europepmc_xml, "u")
    chunks = entry_chunks(pub)
    assert [c["section_path"] for c in chunks] == [["Methods"]] * 4 + [["Methods", "Design"]]
    assert all(len(c["text"]) <= MAX_CHARS and _ENDS.search(c["text"]) for c in chunks)
    assert all(len(c["text"]) > MAX_CHARS - 100 for c in chunks[:3])  # filled, not cut at every sentence
    assert " ".join(c["text"] for c in chunks[:4]) == " ".join(sentences)


def test_without_sections_the_full_text_paragraphs_follow_the_abstract_and_a_webpage_has_its_url() -> None:
    pub = Publication()
    args = FetcherArgs()
    pub.set_doi("10.1/x", PartType.doi, "", args)
    pub.set_title("A title", PartType.doi, "u", args)
    pub.set_abstract("The abstract.", PartType.doi, "u", args)
    pub.set_fulltext("A title\n\nThe abstract.\n\nFirst paragraph.\n\nSecond one.", PartType.doi, "u", args)
    assert [(c["section_path"], c["text"]) for c in entry_chunks(pub)] == [
        (["Title"], "A title"), (["Abstract"], "The abstract."), ([], "First paragraph."), ([], "Second one.")]
    page = Webpage(start_url="https://tool.org", final_url="https://tool.org/", content="Intro.\n\nUsage.")
    assert entry_chunks(page) == [{"url": "https://tool.org/", "section_path": [], "index": 0, "text": "Intro."},
                                  {"url": "https://tool.org/", "section_path": [], "index": 1, "text": "Usage."}]
