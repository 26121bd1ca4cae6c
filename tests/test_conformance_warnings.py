"""A run of 22 IDs against the recorded responses (tests/support/replay.py as every service's proxy) prints at most one
warning line per kind of problem: a service's 404s for twenty DOIs are one line with their count, not twenty."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pubfetch.cli.main import main
from support.replay import CorpusReplay
from support.replayrun import REAL_ENDPOINTS, replay_proxy

_MORE = re.compile(r" \(and (\d+) more like it(: [^;]+)?; all in [^)]+\)$")


def corpus_ids(replay: CorpusReplay, count: int) -> list[str]:
    """PMIDs of the recorded Europe PMC look-ups, then DOIs of the recorded doi.org redirects."""
    ids: list[str] = []
    for e in replay.by_resource("europepmc_search"):
        if "EXT_ID" in e["url"]:
            ids += [r["pmid"] for r in json.loads(replay.body(e))["resultList"]["result"] if r.get("source") == "MED"]
    for e in replay.entries:
        doi = e.get("ids", {}).get("doi") if e["resource"] == "doi_redirect" else None
        ids += [doi] if isinstance(doi, str) else []
    return list(dict.fromkeys(ids))[:count]


def kind_of(line: str) -> str:
    """The line with its count and every ID, path, number or host replaced: what stays is the kind of problem (a 404
    is one kind whichever service gave it)."""
    return " ".join("#" if re.search(r"[\d/]", word) or re.fullmatch(r"[\w.-]+\.[a-z]+:", word) else word
                    for word in _MORE.sub("", line).split())


def test_a_22_id_run_prints_one_warning_line_per_kind(corpus_dir: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with replay_proxy(corpus_dir) as (replay, server):
        ids = corpus_ids(replay, 22)
        assert len(ids) == 22
        (tmp_path / "ids.txt").write_text("\n".join(ids) + "\n")
        for name in ("HTTP_PROXY", "HTTPS_PROXY"):
            monkeypatch.setenv(name, server.base)
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", server.ca_file)
        for name in ("PUBFETCH_NCBI_EMAIL", "PUBFETCH_UNPAYWALL_EMAIL"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("PUBFETCH_RATE_DB", str(tmp_path / "rates.sqlite"))
        for name, url in vars(REAL_ENDPOINTS).items():
            monkeypatch.setenv(f"PUBFETCH_{name.upper()}_URL", url)
        code = main(["-pub-file", str(tmp_path / "ids.txt"), "-db-fetch-end", str(tmp_path / "pubs.db"),
                     "--allow-private-addresses", "--no-javascript", "--log", str(tmp_path / "run.log")])
    err = capsys.readouterr().err.splitlines()
    assert code == 3 and err[-1].startswith("pubfetch: 22 publications: 22 fetched"), err
    warnings = [line for line in err if line.startswith("pubfetch: warning: ")]
    kinds = [kind_of(line) for line in warnings]
    assert len(set(kinds)) == len(kinds), "\n".join(warnings)
    # the settings warnings come once each, also while other threads parse pages (whose parser silences warnings)
    assert sum("asked without an e-mail address" in line for line in warnings) == 2, "\n".join(warnings)
    gathered = sum(int(m.group(1)) for line in warnings if (m := _MORE.search(line)))
    assert gathered >= 20, "\n".join(warnings)  # the log file has every one of them
    logged = (tmp_path / "run.log").read_text()
    assert logged.count(" WARNING ") >= len(warnings) + gathered
