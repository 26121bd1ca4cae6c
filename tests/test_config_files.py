"""Config files (pubfetch/config/files.py): settings named flat or under their record, a bad setting named with what
is wrong, and a file that is no config file (a FIFO, one over the size bound, one nested too deep, a key given twice)
refused in one line naming the file and line, never waited on, cut or quoted. A rule file's error names its file and
line, not the text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pubfetch.config import FetchConfig
from pubfetch.config.files import MAX_CONFIG_BYTES
from pubfetch.rules import RuleError, ScrapingRules
from support.waits import within


def config_error(path: Path) -> str:
    with pytest.raises(ValueError) as caught:
        within(60, lambda: FetchConfig.from_env({}, config_file=path))
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    return message


def test_a_fifo_is_refused_not_waited_on(tmp_path: Path):
    fifo = tmp_path / "config.yaml"
    os.mkfifo(fifo)
    assert config_error(fifo).endswith("is not a regular file")


def test_a_config_over_the_bound_is_refused_not_cut(tmp_path: Path):
    big = tmp_path / "config.yaml"
    big.write_text("# padding\n" * (MAX_CONFIG_BYTES // 10) + "ncbi_api_key: abc\n")
    assert "is over 1024 kB" in config_error(big)
    fits = tmp_path / "fits.yaml"
    fits.write_text("# padding\n" * (MAX_CONFIG_BYTES // 10 - 10) + "ncbi_api_key: abc\n")
    assert FetchConfig.from_env({}, config_file=fits).run.ncbi_api_key == "abc"


def test_deep_nesting_is_refused_without_recursion_error(tmp_path: Path):
    deep = tmp_path / "config.yaml"
    deep.write_text("threads: " + "[" * 200_000 + "\n")
    assert config_error(deep).endswith("(line 1): nested deeper than 64 levels")


def test_a_key_given_twice_is_refused_with_its_line(tmp_path: Path):
    twice = tmp_path / "config.yaml"
    twice.write_text("allow_private_addresses: false\nthreads: 4\nallow_private_addresses: true\n")
    assert config_error(twice).endswith("(line 3): the key 'allow_private_addresses' is given twice")


def test_a_rule_file_error_names_file_and_line_not_the_text(tmp_path: Path):
    shadow = tmp_path / "shadow"
    secret = "root:$6$Zr4f$hashedvalue:19000:0:99999:7:::"
    shadow.write_text(f"{secret}\ndaemon:*:19000:0:99999:7:::\n")
    with pytest.raises(RuleError) as caught:
        ScrapingRules().add_journals(shadow.read_text(), str(shadow))
    message = str(caught.value)
    assert message.startswith(f"scraping rules {shadow}:1: ")
    problem = message.removeprefix(f"scraping rules {shadow}:1: ")
    assert "hashed" not in problem and "root" not in problem


@pytest.mark.parametrize(("text", "message"), [
    ("threds: 3\n", "unknown setting 'threds'"),
    ("fetching:\n  emptyCooldown: soon\n", "emptyCooldown"),
    ("- 1\n- 2\n", "must be a mapping of settings"),
    ("threads: [1\n", "is not valid YAML"),
    ("endpoints:\n  eutils: ftp://x/\n", "endpoint eutils must be an http(s) URL"),
    ("http:\n  threads: 3\n", "http has no setting 'threads'"),
    ("busy_retries: many\n", "busy_retries must be a whole number"),
    ("threads: 0\n", "threads must be between 1 and 1024"),
])
def test_bad_files_say_what_is_wrong(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        FetchConfig.from_env({}, config_file=path)


def test_a_file_names_settings_flat_or_under_their_record(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("http:\n  busy_retries: 0\n  proxies: {https: 'http://proxy.example:3128'}\nbatching:\n"
                    "  linger_ms: 10\nmax_links: 3\nunlimited_hosts: [doi.org, example.org]\n")
    cfg = FetchConfig.from_env({}, config_file=path)
    assert (cfg.http.busy_retries, cfg.batching.linger_ms, cfg.run.max_links) == (0, 10, 3)
    assert cfg.http.proxies == {"https": "http://proxy.example:3128"}
    assert cfg.http.unlimited_hosts == frozenset({"doi.org", "example.org"})
