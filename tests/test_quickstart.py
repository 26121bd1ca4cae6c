"""The README's quick start, run as written against a local stand-in for the services.

The stand-in answers for the real IDs of ``examples/pmids.txt`` with synthetic records (tests/support/synthetic.py) carrying
those IDs, so the command, the shipped ID file and the database handling are the ones a newcomer runs.
"""

from __future__ import annotations

import re
import shlex
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from pubfetch.cli.idsource import iter_pub_file
from pubfetch.cli.main import main
from support.chaos import ChaosServices
from support.loopback import Reply, Request
from support.synthetic import PMC_BASE, PMID_BASE, Article

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pmids.txt"


@dataclass
class ExampleArticle(Article):
    """A synthetic article answering to one real ID of the example file (its other IDs are synthetic)."""

    given: str = ""

    @property
    def oa(self) -> bool:
        return self.given.startswith("PMC") or self.index % 2 == 0

    @property
    def pmid(self) -> str:
        return self.given if self.given.isdigit() else str(PMID_BASE + self.index)

    @property
    def pmcid(self) -> str:
        if self.given.startswith("PMC"):
            return self.given
        return f"PMC{PMC_BASE + self.index}" if self.oa else ""

    @property
    def doi(self) -> str:
        return self.given if self.given.startswith("10.") else f"10.5555/synth.{self.index}"


class ExampleServices(ChaosServices):
    """Healthy synthetic services (with DOI redirects, publisher pages and Unpaywall) that know the example's IDs."""

    def __init__(self, given: list[str]) -> None:
        super().__init__(len(given), seed=0, rate=0.0)
        self.heal()
        self.articles = [ExampleArticle(i, value) for i, value in enumerate(given)]
        self.by_id = {key.lower(): a for a in self.articles for key in (a.pmid, a.pmcid, a.doi) if key}

    def article(self, pmid: str = "", pmcid: str = "", doi: str = "") -> Article | None:
        for key in (pmid, pmcid, doi):
            if key and key.lower() in self.by_id:
                return self.by_id[key.lower()]
        return None

    def _article_of(self, path: str) -> Article | None:
        _, _, doi = path.lstrip("/").partition("/")
        return self.article(doi=doi)

    def _publisher(self, req: Request) -> Reply:
        index = req.path.removeprefix("/publisher/")
        if not index.isdigit() or int(index) >= len(self.articles):
            return Reply(404, "no such article", "text/plain")
        return Reply(200, self.publisher_page(self.articles[int(index)]))


def example_ids() -> list[str]:
    return [ids.pmid or ids.pmcid or ids.doi for ids in iter_pub_file(str(EXAMPLE), True)]


def quickstart_command() -> list[str]:
    """The fetching command of the README's quick start (the code block line running pubfetch on the example)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [line for line in readme.splitlines() if re.match(r"pubfetch .*examples/pmids\.txt", line)]
    assert lines, "the README shows no command fetching examples/pmids.txt"
    return shlex.split(lines[0])[1:]


def readme_sample() -> list[str]:
    """The summary lines the README shows for the first and the second run."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"(?m)^pubfetch: \d+ publications: .*$", readme)[:2]


def test_the_example_file_holds_a_few_dozen_ids_of_every_kind() -> None:
    ids = list(iter_pub_file(str(EXAMPLE), True))
    assert 30 <= len(ids) <= 60
    assert {bool(i.pmid) for i in ids} == {True, False}
    assert any(i.pmcid and not i.pmid for i in ids) and any(i.doi and not i.pmid for i in ids)
    assert len({i.pmid or i.pmcid or i.doi for i in ids}) == len(ids)


@pytest.mark.slow
def test_quick_start_creates_the_database_and_a_second_run_skips_what_is_complete(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    argv = quickstart_command()
    assert argv[:2] == ["-pub-file", "examples/pmids.txt"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.setenv("PUBFETCH_RATE_DB", str(tmp_path / "rates.sqlite"))
    given = example_ids()
    with ExampleServices(given) as services:
        for name, value in vars(services.endpoints()).items():
            monkeypatch.setenv(f"PUBFETCH_{name.upper()}_URL", value)
        db = tmp_path / argv[-1]
        assert not db.exists()
        first = main(argv + ["--allow-private-addresses", "--no-javascript"])
        err = capsys.readouterr().err
        assert first == 0, err
        assert err.splitlines()[-1] == readme_sample()[0]
        assert db.is_file()
        with sqlite3.connect(db) as conn:
            (stored,) = conn.execute("SELECT count(*) FROM publications").fetchone()
        assert stored == len(given)
        before = dict(services.counts)
        not_final = services.counts["doi"]  # the closed-access ones: no full text, so never final
        assert 0 < not_final < len(given)

        second = main(argv + ["--allow-private-addresses", "--no-javascript"])
        err = capsys.readouterr().err
        assert second == first, err
        assert err.splitlines()[-1] == readme_sample()[1]
        # the final entries are skipped; the others are retried (PubFetcher's retryLimit), each asked once more
        assert services.counts["europepmc_fulltext"] == before["europepmc_fulltext"]
        assert services.counts["doi"] == 2 * not_final
