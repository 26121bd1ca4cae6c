"""Text helpers (pubfetch/textutil.py): markup taken out of values read as plain text, and fetched values made safe
to print on a terminal, and counts with the noun that agrees."""

from __future__ import annotations

from pubfetch.textutil import counted, strip_html, strip_terminal_controls


def test_markup_is_dropped_entities_decoded_and_space_collapsed() -> None:
    assert strip_html("  <b>Genome</b>&nbsp;&amp; <i>cell</i>\n biology ") == "Genome & cell biology"
    assert strip_html("A  <sup>2</sup> test") == "A 2 test"
    assert strip_html("plain\ttext\n") == "plain text"
    assert strip_html("x &lt; y") == "x < y"


def test_escape_sequences_are_removed_whole_and_newlines_kept() -> None:
    assert strip_terminal_controls("Title\x1b]0;PWNED\x07 here") == "Title here"
    assert strip_terminal_controls("\x1b[2J\x1b[1;1HCleared") == "Cleared"
    assert strip_terminal_controls("bell\x07 and nul\x00") == "bell and nul"
    assert strip_terminal_controls("two\nlines\tand a tab") == "two\nlines\tand a tab"
    assert strip_terminal_controls("caf\u00e9 \u2013 ok") == "caf\u00e9 \u2013 ok"


def test_a_count_comes_with_the_noun_that_agrees() -> None:
    assert [counted(n, "publication ID") for n in (0, 1, 2)] == ["0 publication IDs", "1 publication ID",
                                                                  "2 publication IDs"]
    assert counted(1, "entry", "entries") == "1 entry" and counted(3, "entry", "entries") == "3 entries"
