"""FetchConfig from the environment, a YAML file and keyword arguments, in that order of precedence."""

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


def test_environment_then_file_then_keywords(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(FILE)
    cfg = FetchConfig.from_env({}, config_file=path)
    assert cfg.threads == 3 and cfg.ncbi_email == "curator@example.org"
    assert cfg.args.empty_cooldown == 720 and cfg.args.oadoi_email == "file@example.org"
    assert cfg.endpoints.eutils == "http://mirror.example.org/eutils/"
    assert cfg.endpoints.europepmc == "https://www.ebi.ac.uk/europepmc/webservices/rest/"
    env = {"PUBFETCH_THREADS": "5", "NCBI_API_KEY": "k123", "PUBFETCH_UNPAYWALL_EMAIL": "env@example.org",
           "PUBFETCH_EUROPEPMC_EMAIL": "epmc@example.org", "PUBFETCH_EUTILS_URL": "http://other.example.org/e/",
           "PUBFETCH_DOI_URL": "http://doi.example.org/"}
    cfg = FetchConfig.from_env(env)  # the environment alone
    assert (cfg.threads, cfg.ncbi_api_key, cfg.args.oadoi_email) == (5, "k123", "env@example.org")
    assert cfg.endpoints.eutils == "http://other.example.org/e/"
    cfg = FetchConfig.from_env(env, config_file=path)
    # what the file names replaces the environment's value ...
    assert (cfg.threads, cfg.args.oadoi_email, cfg.endpoints.eutils) == (
        3, "file@example.org", "http://mirror.example.org/eutils/")
    assert cfg.args.empty_cooldown == 720
    # ... and what it leaves out keeps it
    assert (cfg.ncbi_api_key, cfg.args.europepmc_email, cfg.endpoints.doi) == (
        "k123", "epmc@example.org", "http://doi.example.org/")
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


def test_keyword_options_name_settings_and_a_typo_says_so(tmp_path):
    from pubfetch.fetcher import fetch_many
    from pubfetch.webfetch import fetch_webpage

    cfg = FetchConfig().replace(threads=2, batch_size=5, http_overrides={"busy_retries": 0})
    assert (cfg.threads, cfg.batch_size, cfg.http_config().busy_retries) == (2, 5, 0)
    assert cfg.replace(chromium=None) == cfg, "None leaves a setting as it is"
    with pytest.raises(TypeError, match=r"fetch_many\(\) got an unknown option 'thread' \(did you mean 'threads'\?\)"):
        next(fetch_many(["123"], config=cfg, thread=4))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"fetch_webpage\(\) got an unknown option 'javascrpt'"):
        fetch_webpage("http://127.0.0.1:9/", config=cfg, javascrpt=False)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"FetchConfig.replace\(\) got an unknown option 'colour'; options are"):
        cfg.replace(colour="blue")  # type: ignore[call-arg]


def test_http_overrides_keys_are_the_http_settings():
    """The typed overrides name exactly the HttpConfig fields (so that neither drifts from the other)."""
    import dataclasses

    from pubfetch.config import HttpOverrides
    from pubfetch.net.config import HttpConfig

    assert set(HttpOverrides.__annotations__) == {f.name for f in dataclasses.fields(HttpConfig)}


def test_command_line_fetching_parameters_are_applied_once_over_the_file(tmp_path):
    from pubfetch.cli.fetching import fetch_config

    path = tmp_path / "config.yaml"
    path.write_text(FILE)
    cfg = fetch_config({"config": str(path), "threads": 4}, {"timeout": 30000})
    assert (cfg.threads, cfg.args.timeout, cfg.args.empty_cooldown, cfg.args.oadoi_email) == (
        4, 30000, 720, "file@example.org")


def test_every_setting_is_documented() -> None:
    """docs/configuration.md names every field of FetchConfig (a new setting without a word there fails here)."""
    import dataclasses
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [f.name for f in dataclasses.fields(FetchConfig) if f"`{f.name}`" not in doc]
    assert not missing, f"settings not in docs/configuration.md: {missing}"
