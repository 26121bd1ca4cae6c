"""``-out-tables DIR``: each table as pubget lays it out, ``DIR/<id>/table_000.csv`` and ``table_000_info.json``; the
CSV read back with the csv module, its header rows split off as the info says, equals the part."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from pubfetch.extract.jats import parse_jats
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.output.table_files import write_tables
from pubfetch.store import init_store
from support.publications import structured_publication


def _read_back(folder: Path) -> list[tuple[dict, list[list[str]], list[list[str]]]]:
    out = []
    for info_file in sorted(folder.glob("table_*_info.json")):
        info = json.loads(info_file.read_text(encoding="utf-8"))
        with open(folder / info["table_data_file"], encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        out.append((info, rows[:info["n_header_rows"]], rows[info["n_header_rows"]:]))
    return out


def test_recorded_tables_read_back_equal_to_the_part(corpus_dir: Path, tmp_path: Path) -> None:
    pubs = []
    for body in ("files/europepmc_fulltext/PMC3320746.xml", "files/europepmc_fulltext/PMC8222791.xml",
                 "files/pmc_efetch/PMC3299399.xml"):
        (record,) = parse_jats((corpus_dir / body).read_bytes())
        pub = Publication()
        apply_record(pub, record, PartType.europepmc_xml, "u", FetcherArgs())
        pubs.append(pub)
    assert write_tables(tmp_path, pubs) == sum(len(p.tables.items) for p in pubs) > 0
    for pub in pubs:
        read = _read_back(tmp_path / pub.pmcid.content)
        assert len(read) == len(pub.tables.items)
        for (info, header, rows), table in zip(read, pub.tables.items, strict=True):
            assert (header, rows) == (table.header, table.rows)
            assert (info["pmcid"], info["table_id"], info["table_label"], info["table_caption"]) == (
                pub.pmcid.content, table.id, table.label, table.caption)
            assert info["footnotes"] == table.footnotes and info["table_foot"] == "\n".join(table.footnotes)


def test_cells_with_commas_quotes_and_line_breaks_survive(tmp_path: Path) -> None:
    pub = structured_publication()
    write_tables(tmp_path, [pub])
    [(info, header, rows)] = _read_back(tmp_path / "PMC7")
    assert (header, rows) == (pub.tables.items[0].header, pub.tables.items[0].rows)
    assert info["section_path"] == ["Results", "Dose"] and info["truncated"] is False


def test_the_command_line_writes_the_tables(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "pubs.db")
    with init_store(db) as store:
        store.put_publication(structured_publication())
    code, _, err = cli("-pub", "77", "-db", db, "-out-tables", str(tmp_path / "tables"))
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "tables" / "PMC7").iterdir()) == ["table_000.csv",
                                                                               "table_000_info.json"]


def test_a_file_where_the_directory_should_be_is_one_clear_error(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, out, err = cli("-pub", "77", "-out-tables", str(blocker))
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and "-out-tables" in err and "Traceback" not in err
