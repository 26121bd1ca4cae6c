"""``--supplements DIR``: a publication's supplementary files downloaded from a loopback server to
``DIR/<id>/<file name>`` through the run's client, so under the address guard and the body size cap PDFs have."""

from __future__ import annotations

from pathlib import Path

from pubfetch.config import FetchConfig
from pubfetch.model.part_type import PartType
from pubfetch.model.rich import RichName
from pubfetch.model.structure import Supplement
from pubfetch.resources.supplements import download_supplements, supplement_targets
from support.fetchrun import run_context
from support.loopback import LoopbackServer, Reply
from support.publications import structured_publication

DATA = b"sample,value\na,1\n" * 50


def _with_supplements(*items: Supplement):  # type: ignore[no-untyped-def]
    pub = structured_publication()
    pub.supplements.items = []
    pub.set_rich(RichName.supplements, list(items), PartType.europepmc_xml, "u")
    return pub


def test_supplements_are_written_to_their_papers_folder(tmp_path: Path) -> None:
    routes = {"/bin/s1.csv": Reply(200, DATA, "text/csv"), "/bin/other/s1.csv": Reply(200, b"second", "text/csv"),
              "/bin/table.xlsx": Reply(200, b"PK\x03\x04 sheet", "application/octet-stream")}
    with LoopbackServer(routes) as server:
        pub = _with_supplements(Supplement("S1", url=server.url("/bin/s1.csv")),
                                Supplement("S2", url=server.url("/bin/other/s1.csv")),
                                Supplement("S3", url=server.url("/bin/table.xlsx?download=1")),
                                Supplement("S4", url="relative.pdf"))  # no service to ask: left alone
        config = FetchConfig().with_changes(allow_private_addresses=True)
        with run_context(config) as ctx:
            done = download_supplements(ctx, [pub], tmp_path)
    assert (done.written, done.failed) == (3, 0)
    folder = tmp_path / "PMC7"
    assert sorted(p.name for p in folder.iterdir()) == ["s1.csv", "s1_2.csv", "table.xlsx"]
    assert (folder / "s1.csv").read_bytes() == DATA and (folder / "s1_2.csv").read_bytes() == b"second"


def test_a_supplement_at_a_private_address_is_refused_by_the_guard(tmp_path: Path) -> None:
    with LoopbackServer({"/s1.csv": Reply(200, DATA, "text/csv")}) as server:
        pub = _with_supplements(Supplement("S1", url=server.url("/s1.csv")))
        with run_context(FetchConfig()) as ctx:  # private addresses not allowed: the URL came from a source
            done = download_supplements(ctx, [pub], tmp_path)
        assert server.requests == []
    assert (done.written, done.failed) == (0, 1)
    assert not (tmp_path / "PMC7").exists()


def test_a_supplement_over_the_size_cap_leaves_no_file(tmp_path: Path) -> None:
    with LoopbackServer({"/big.bin": Reply(200, DATA * 100, "application/octet-stream")}) as server:
        pub = _with_supplements(Supplement("S1", url=server.url("/big.bin")))
        config = FetchConfig().with_changes(allow_private_addresses=True, max_bytes=1000)
        with run_context(config) as ctx:
            done = download_supplements(ctx, [pub], tmp_path)
    assert (done.written, done.failed) == (0, 1)
    assert list(tmp_path.rglob("*")) == []


def test_file_names_are_made_safe(tmp_path: Path) -> None:
    pub = _with_supplements(Supplement("S1", url="https://example.org/files/..%2F..%2Fetc%2Fpasswd"),
                            Supplement("S2", url="https://example.org/files/"),
                            Supplement("", url="https://example.org/"))
    targets = [path for _, path in supplement_targets(tmp_path, pub)]
    assert all(path.parent == tmp_path / "PMC7" for path in targets)
    assert [p.name for p in targets] == [".._2F.._2Fetc_2Fpasswd", "files", "example.org"]


def test_the_command_line_downloads_supplements(cli, env: Path) -> None:  # type: ignore[no-untyped-def]
    from pubfetch.store import init_store

    with LoopbackServer({"/bin/s1.csv": Reply(200, DATA, "text/csv")}) as server:
        db = str(env / "pubs.db")
        with init_store(db) as store:
            store.put_publication(_with_supplements(Supplement("S1", url=server.url("/bin/s1.csv"))))
        code, _, err = cli("-pub", "77", "-db", db, "--supplements", str(env / "supp"), "--allow-private-addresses")
    assert code == 0, err
    assert (env / "supp" / "PMC7" / "s1.csv").read_bytes() == DATA
