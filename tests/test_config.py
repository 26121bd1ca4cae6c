"""FetchConfig from a YAML file, the environment and keyword arguments, in that order of precedence."""

from __future__ import annotations

import pytest

from pubfetch.cli.main import main
from pubfetch.config import FetchConfig
from pubfetch.fetcher_args import FetcherArgs

FILE = """\
threads: 3
ncbi_email: curator@example.org
fetching:
  emptyCooldown: 12h
  oadoiEmail: file@example.org
endpoints:
  eutils: http://mirror.example.org/eutils
"""


def test_file_then_environment_then_keywords(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(FILE)
    cfg = FetchConfig.from_env({}, config_file=path)
    assert cfg.threads == 3 and cfg.ncbi_email == "curator@example.org"
    assert cfg.args.empty_cooldown == 720 and cfg.args.oadoi_email == "file@example.org"
    assert cfg.endpoints.eutils == "http://mirror.example.org/eutils/"
    assert cfg.endpoints.europepmc == "https://www.ebi.ac.uk/europepmc/webservices/rest/"
    env = {"PUBFETCH_THREADS": "5", "NCBI_API_KEY": "k123", "PUBFETCH_UNPAYWALL_EMAIL": "env@example.org",
           "PUBFETCH_EUTILS_URL": "http://other.example.org/e/"}
    cfg = FetchConfig.from_env(env, config_file=path)
    assert (cfg.threads, cfg.ncbi_api_key, cfg.args.oadoi_email) == (5, "k123", "env@example.org")
    assert cfg.args.empty_cooldown == 720  # from the file, untouched by the environment
    assert cfg.endpoints.eutils == "http://other.example.org/e/"
    cfg = FetchConfig.from_env(env, config_file=path, threads=1, args=FetcherArgs(oadoi_email="kw@example.org"))
    assert (cfg.threads, cfg.args.oadoi_email) == (1, "kw@example.org")


def test_default_file_location(tmp_path):
    assert FetchConfig.default_file({"XDG_CONFIG_HOME": str(tmp_path)}) is None
    (tmp_path / "pubfetch").mkdir()
    (tmp_path / "pubfetch" / "config.yaml").write_text("threads: 2\n")
    assert FetchConfig.default_file({"XDG_CONFIG_HOME": str(tmp_path)}) == str(tmp_path / "pubfetch" / "config.yaml")
    assert FetchConfig.from_env({"XDG_CONFIG_HOME": str(tmp_path)}).threads == 2


@pytest.mark.parametrize(("text", "message"), [
    ("threds: 3\n", "unknown setting 'threds'"),
    ("fetching:\n  emptyCooldown: soon\n", "emptyCooldown"),
    ("- 1\n- 2\n", "must be a mapping of settings"),
    ("threads: [1\n", "is not valid YAML"),
    ("endpoints:\n  eutils: ftp://x/\n", "endpoints: endpoint eutils must be an http(s) URL"),
])
def test_bad_files_say_what_is_wrong(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        FetchConfig.from_env({}, config_file=path)


def test_cli_reports_a_bad_config_file(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("threds: 3\n")
    code = main(["-fetch-document", "http://127.0.0.1:9/", "--config", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"pubfetch: error: config file {path}: unknown setting 'threds' (known: fetching, "
                          "endpoints, allow_private_addresses, ")
    assert err.count("\n") == 1
