"""Where sentences end in a paper's paragraph: the sentence around a link, and passages cut to a size."""

from __future__ import annotations

from pubfetch.extract.sentences import pack, sentence_at, sentence_spans

PARAGRAPH = ("Reads were aligned with BWA (Li et al. 2009), e.g. for sample 3. Data are at GEO (GSE12345). "
             "See Fig. 2 and J. Smith's tool at https://example.org/a.b v1.2. \"Quoted.\" (Then more.)")


def test_sentences_end_at_a_stop_before_a_capital_but_not_after_abbreviations_initials_urls_or_decimals() -> None:
    assert [PARAGRAPH[s:e] for s, e in sentence_spans(PARAGRAPH)] == [
        "Reads were aligned with BWA (Li et al. 2009), e.g. for sample 3.",
        "Data are at GEO (GSE12345).",
        "See Fig. 2 and J. Smith's tool at https://example.org/a.b v1.2.",
        "\"Quoted.\"",
        "(Then more.)",
    ]


def test_the_sentence_around_a_span_and_spans_across_an_end() -> None:
    start = PARAGRAPH.index("GSE12345")
    assert sentence_at(PARAGRAPH, start, start + 8) == "Data are at GEO (GSE12345)."
    across = PARAGRAPH.index("sample 3")
    assert sentence_at(PARAGRAPH, across, start) == ("Reads were aligned with BWA (Li et al. 2009), e.g. for sample 3. "
                                                     "Data are at GEO (GSE12345).")
    assert sentence_at("", 0) == ""


def test_passages_gather_sentences_up_to_the_limit_and_cut_a_longer_one_at_white_space() -> None:
    text = "One two three. Four five six. " + "X" * 30 + " yy."
    assert pack(text, 30) == ["One two three. Four five six.", "X" * 30, "yy."]
    assert all(len(p) <= 30 for p in pack(PARAGRAPH, 30))
    assert " ".join(pack(PARAGRAPH, 40)).split() == PARAGRAPH.split()
    assert pack("a" * 25, 10) == ["a" * 10, "a" * 10, "a" * 5]
