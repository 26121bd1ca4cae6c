"""The structure parts' items: their JSON read back whatever a damaged entry holds, and the names files are written
under."""

from __future__ import annotations

from pubfetch.model.structure import Figure, Statement, Supplement, Table, folder_name, safe_file_name


def test_items_read_back_from_their_json() -> None:
    table = Table("T1", "Table 1", "C", [["a", "b"]], [["1", "2"]], ["note"], ["Results"], True)
    assert Table.from_json(table.to_json()) == table
    supplement = Supplement("S1", "S1", "Data", "https://x.org/s1.csv", "text/csv", 10)
    assert Supplement.from_json(supplement.to_json()) == supplement
    assert Figure.from_json(Figure("F", "Figure 1", "c", "u").to_json()) == Figure("F", "Figure 1", "c", "u")
    assert Statement.from_json({"type": "funding", "text": "X"}) == Statement("funding", "", "X")


def test_a_damaged_item_reads_as_far_as_it_is_sound() -> None:
    table = Table.from_json({"header": "not rows", "rows": [["1", 2, None], "x"], "footnotes": [1], "truncated": 1})
    assert (table.header, table.rows, table.footnotes, table.truncated) == ([], [["1"]], [], False)
    assert Supplement.from_json({"size": True}).size == -1 and Supplement.from_json({"size": "12"}).size == -1
    assert table.width == 1


def test_a_supplement_is_named_by_its_url() -> None:
    assert Supplement(url="https://x.org/bin/s1.csv?dl=1#top").file_name == "s1.csv"


def test_folder_and_file_names() -> None:
    assert folder_name("PMC7", "77", "10.1/X") == "PMC7"
    assert folder_name("", "77", "10.1/X") == "77"
    assert folder_name("", "", "10.1021/PR200636X") == "10.1021_pr200636x"
    assert folder_name("", "", "") == ""
    assert safe_file_name("..") == "_.." and safe_file_name("a b/c") == "a_b_c" and safe_file_name("///") == "_"
