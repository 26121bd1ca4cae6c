"""FetchConfig from the environment, a YAML file and keyword arguments, in that order of precedence; settings changed
by name over the records of the tree."""

from __future__ import annotations

import pytest

from pubfetch.cli.main import main
from pubfetch.config import FetchConfig, default_file
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.net.config import http_config

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
    assert cfg.run.threads == 3 and cfg.run.ncbi_email == "curator@example.org"
    assert cfg.fetching.empty_cooldown == 720 and cfg.fetching.oadoi_email == "file@example.org"
    assert cfg.endpoints.eutils == "http://mirror.example.org/eutils/"
    assert cfg.endpoints.europepmc == "https://www.ebi.ac.uk/europepmc/webservices/rest/"
    env = {"PUBFETCH_THREADS": "5", "NCBI_API_KEY": "k123", "PUBFETCH_UNPAYWALL_EMAIL": "env@example.org",
           "PUBFETCH_EUROPEPMC_EMAIL": "epmc@example.org", "PUBFETCH_EUTILS_URL": "http://other.example.org/e/",
           "PUBFETCH_DOI_URL": "http://doi.example.org/"}
    cfg = FetchConfig.from_env(env)  # the environment alone
    assert (cfg.run.threads, cfg.run.ncbi_api_key, cfg.fetching.oadoi_email) == (5, "k123", "env@example.org")
    assert cfg.endpoints.eutils == "http://other.example.org/e/"
    cfg = FetchConfig.from_env(env, config_file=path)
    # what the file names replaces the environment's value ...
    assert (cfg.run.threads, cfg.fetching.oadoi_email, cfg.endpoints.eutils) == (
        3, "file@example.org", "http://mirror.example.org/eutils/")
    assert cfg.fetching.empty_cooldown == 720
    # ... and what it leaves out keeps it
    assert (cfg.run.ncbi_api_key, cfg.fetching.europepmc_email, cfg.endpoints.doi) == (
        "k123", "epmc@example.org", "http://doi.example.org/")
    cfg = FetchConfig.from_env(env, config_file=path, threads=1, fetching=FetcherArgs(oadoi_email="kw@example.org"))
    assert (cfg.run.threads, cfg.fetching.oadoi_email) == (1, "kw@example.org")


def test_default_file_location(tmp_path):
    assert default_file({"XDG_CONFIG_HOME": str(tmp_path)}) is None
    (tmp_path / "pubfetch").mkdir()
    (tmp_path / "pubfetch" / "config.yaml").write_text("threads: 2\n")
    assert default_file({"XDG_CONFIG_HOME": str(tmp_path)}) == str(tmp_path / "pubfetch" / "config.yaml")
    assert FetchConfig.from_env({"XDG_CONFIG_HOME": str(tmp_path)}).run.threads == 2


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


def test_cli_reports_a_bad_config_file(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("threds: 3\n")
    code = main(["-fetch-document", "http://127.0.0.1:9/", "--config", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"pubfetch: error: config file {path}: unknown setting 'threds' (the settings are listed "
                          "in docs/configuration.md)")
    assert err.count("\n") == 1


def test_keyword_options_name_settings_and_a_typo_says_so(tmp_path):
    from pubfetch.fetcher import fetch_many
    from pubfetch.webfetch import fetch_webpage

    cfg = FetchConfig().with_changes(threads=2, batch_size=5, busy_retries=0, timeout=5000)
    assert (cfg.run.threads, cfg.batching.batch_size, cfg.http.busy_retries, cfg.fetching.timeout) == (2, 5, 0, 5000)
    assert (http_config(cfg).busy_retries, http_config(cfg).timeout_ms) == (0, 5000)
    assert cfg.with_changes(chromium="/bin/c").with_changes(chromium=None).run.chromium is None
    with pytest.raises(TypeError, match=r"fetch_many\(\) got an unknown option 'thread' \(did you mean 'threads'\?\)"):
        next(fetch_many(["123"], config=cfg, thread=4))
    with pytest.raises(TypeError, match=r"fetch_webpage\(\) got an unknown option 'javascrpt'"):
        fetch_webpage("http://127.0.0.1:9/", config=cfg, javascrpt=False)
    with pytest.raises(TypeError, match=r"FetchConfig.with_changes\(\) got an unknown option 'colour'; see "):
        cfg.with_changes(colour="blue")


def test_changes_are_checked_against_the_declarations():
    with pytest.raises(ValueError, match="per_host_connections must be between 1 and 1024, got 0"):
        FetchConfig().with_changes(per_host_connections=0)
    with pytest.raises(ValueError, match="allow_private_addresses must be true or false, got 'false'"):
        FetchConfig().with_changes(allow_private_addresses="false")
    with pytest.raises(ValueError, match="host_connections.ebi.ac.uk must be between 1 and 1024"):
        FetchConfig().with_changes(host_connections={"ebi.ac.uk": 0})
    hosts = FetchConfig().with_changes(unlimited_hosts=["doi.org"]).http.unlimited_hosts
    assert hosts == frozenset({"doi.org"})
    from pubfetch.model.part_type import PartName

    assert FetchConfig().with_changes(parts=["title"]).run.parts == frozenset({PartName.title})
    with pytest.raises(ValueError, match=r"parts must name some of pmid, .*got \['titel'\]"):
        FetchConfig().with_changes(parts=["titel"])


def test_a_setting_s_name_is_unique_across_the_records():
    import dataclasses

    from pubfetch.config import SETTINGS

    names = [f.name for record in (FetchConfig().fetching, FetchConfig().endpoints, FetchConfig().http,
                                   FetchConfig().batching, FetchConfig().run) for f in dataclasses.fields(record)]
    assert len(names) == len(set(names)) == len(SETTINGS)


def test_the_environment_gives_settings_of_every_record():
    env = {"PUBFETCH_RATE_DB": "redis://127.0.0.1:6379/3", "REQUESTS_CA_BUNDLE": "/etc/ca.pem",
           "PUBFETCH_CHROMIUM": "/usr/bin/chromium", "PUBFETCH_NCBI_API_KEY": " key ", "NCBI_API_KEY": "other"}
    cfg = FetchConfig.from_env(env, config_file="")
    assert (cfg.run.rate_db, cfg.http.ca_bundle, cfg.run.chromium, cfg.run.ncbi_api_key) == (
        "redis://127.0.0.1:6379/3", "/etc/ca.pem", "/usr/bin/chromium", "key")
    with pytest.raises(ValueError, match="PUBFETCH_THREADS must be a whole number, got 'many'"):
        FetchConfig.from_env({"PUBFETCH_THREADS": "many"}, config_file="")
    with pytest.raises(ValueError, match="PUBFETCH_THREADS: threads must be between 1 and 1024, got 0"):
        FetchConfig.from_env({"PUBFETCH_THREADS": "0"}, config_file="")


def test_a_file_names_settings_flat_or_under_their_record(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("http:\n  busy_retries: 0\n  proxies: {https: 'http://proxy.example:3128'}\nbatching:\n"
                    "  linger_ms: 10\nmax_links: 3\nunlimited_hosts: [doi.org, example.org]\n")
    cfg = FetchConfig.from_env({}, config_file=path)
    assert (cfg.http.busy_retries, cfg.batching.linger_ms, cfg.run.max_links) == (0, 10, 3)
    assert cfg.http.proxies == {"https": "http://proxy.example:3128"}
    assert cfg.http.unlimited_hosts == frozenset({"doi.org", "example.org"})


def test_command_line_fetching_parameters_are_applied_once_over_the_file(tmp_path):
    from pubfetch.cli.fetching import fetch_config

    path = tmp_path / "config.yaml"
    path.write_text(FILE)
    cfg = fetch_config({"config": str(path), "threads": 4}, {"timeout": 30000})
    assert (cfg.run.threads, cfg.fetching.timeout, cfg.fetching.empty_cooldown, cfg.fetching.oadoi_email) == (
        4, 30000, 720, "file@example.org")


def test_each_option_a_setting_declares_is_on_the_command_line_with_its_default():
    import re

    from pubfetch.cli.options import GROUPS as OPTION_GROUPS
    from pubfetch.config import cli_options

    helps = {name: opt.help for group in OPTION_GROUPS for opt in group.options for name in opt.names}
    for setting, option, default in cli_options():
        assert option in helps, f"{setting} declares {option}, which the command line does not have"
        stated = re.search(r"\(default (\d+)", helps[option])
        if stated and isinstance(default, int) and not isinstance(default, bool):
            assert int(stated.group(1)) == default, f"{option} says default {stated.group(1)}, {setting} is {default}"


def test_command_line_options_set_the_settings_they_declare(tmp_path):
    from pubfetch.cli.fetching import fetch_config

    values = {"config": str(tmp_path / "none.yaml"), "threads": 3, "batch-size": 7, "connections-per-host": 2,
              "no-javascript": True, "allow-private-addresses": True, "references": True, "no-rate-limit": True,
              "rate-db": "redis://127.0.0.1:6379/2", "ncbi-api-key": " k ", "chromium": "/bin/chromium"}
    (tmp_path / "none.yaml").write_text("threads: 5\nbatch_size: 9\n")
    cfg = fetch_config(values)
    assert (cfg.run.threads, cfg.batching.batch_size, cfg.http.per_host_connections) == (3, 7, 2)
    assert (cfg.run.javascript, cfg.http.allow_private_addresses, cfg.run.references, cfg.run.rate_limits) == (
        False, True, True, False)
    assert (cfg.run.rate_db, cfg.run.ncbi_api_key, cfg.run.chromium) == ("redis://127.0.0.1:6379/2", "k", "/bin/chromium")


def test_help_names_every_variable_of_the_environment(capsys):
    from pubfetch.config.defaults import PROCESS_VARIABLES
    from pubfetch.config.environment import variables

    main(["--help"])
    tail = capsys.readouterr().out.split("\nEnvironment", 1)[1]
    names = [name for names in variables().values() for name in names] + [
        name for name in PROCESS_VARIABLES if name.startswith("PUBFETCH_")]
    missing = [name for name in names if name not in tail
               and not (name.endswith("_URL") and "PUBFETCH_<SERVICE>_URL" in tail)]
    assert not missing, f"--help does not name {', '.join(missing)}"
