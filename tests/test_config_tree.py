"""The settings tree (pubfetch/config/tree.py): FetchConfig from the environment, a YAML file and keyword arguments, in
that order of precedence; settings changed by name over the records of the tree, whole records by group name, an
unknown name refused with the closest known one; the settings a queued job carries to a worker."""

from __future__ import annotations

import json

import pytest

from pubfetch.config import JOB_SETTINGS, Endpoints, FetchConfig, HttpSettings
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


def test_keyword_options_name_settings_and_a_typo_says_so(tmp_path):
    from pubfetch.fetcher import fetch_many
    from pubfetch.webfetch import fetch_webpage

    cfg = FetchConfig().with_changes(threads=2, batch_size=5, busy_retries=0, timeout=5000)
    assert (cfg.run.threads, cfg.batching.batch_size, cfg.http.busy_retries, cfg.fetching.timeout) == (2, 5, 0, 5000)
    assert (http_config(cfg).busy_retries, http_config(cfg).timeout) == (0, 5000)
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


def test_a_setting_the_environment_and_the_file_both_give_is_the_file_s_and_a_change_beats_both(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("busy_retries: 5\nmax_links: 4\n")
    env = {"PUBFETCH_THREADS": "6", "PUBFETCH_CONFIG": str(path)}
    cfg = FetchConfig.from_env(env)  # the file PUBFETCH_CONFIG names
    assert (cfg.run.threads, cfg.http.busy_retries, cfg.run.max_links) == (6, 5, 4)
    cfg = FetchConfig.from_env(env, max_links=0, threads=2)
    assert (cfg.run.threads, cfg.http.busy_retries, cfg.run.max_links) == (2, 5, 0)
    assert FetchConfig.from_env(env, config_file="").http.busy_retries == 2  # "" reads no file


def test_an_unknown_name_is_a_type_error_with_the_closest_name():
    with pytest.raises(TypeError) as caught:
        FetchConfig().with_changes(busy_retry=1)
    assert str(caught.value) == ("FetchConfig.with_changes() got an unknown option 'busy_retry' (did you mean "
                                 "'busy_retries'?); see docs/configuration.md for the settings")
    with pytest.raises(TypeError, match=r"^fetch\(\) got an unknown option 'endpoint' \(did you mean 'endpoints'\?\)"):
        FetchConfig().with_options({"endpoint": None}, "fetch")


def test_a_whole_record_is_replaced_by_its_group_name_before_settings_of_it_apply():
    mirror = Endpoints(eutils="http://127.0.0.1:8080/eutils/")
    cfg = FetchConfig().with_changes(endpoints=mirror, http=HttpSettings(busy_retries=0), max_redirects=3)
    assert cfg.endpoints is mirror
    assert (cfg.http.busy_retries, cfg.http.max_redirects) == (0, 3)
    assert FetchConfig().with_changes(endpoints=mirror, doi="http://127.0.0.1:8081/").endpoints.eutils == (
        "http://127.0.0.1:8080/eutils/")


def test_changes_make_a_copy_and_leave_the_original_as_it_was():
    original = FetchConfig()
    changed = original.with_changes(threads=2)
    assert (original.run.threads, changed.run.threads) == (8, 2)
    assert changed.http is original.http  # records not named stay shared


def test_none_keeps_a_setting_only_where_the_caller_asks_for_it():
    """A library call's keyword left at None keeps the configuration's value; with_changes sets None as given."""
    cfg = FetchConfig().with_changes(chromium="/usr/bin/chromium", threads=3)
    kept = cfg.with_options({"chromium": None, "threads": None}, "fetch", none_keeps=True)
    assert (kept.run.chromium, kept.run.threads) == ("/usr/bin/chromium", 3)
    assert cfg.with_changes(chromium=None).run.chromium is None


def test_a_job_carries_its_settings_to_a_worker_as_json():
    sent = FetchConfig().with_changes(max_links=2, javascript=False, efetch_batch=50, threads=16,
                                      annotations=["Diseases", "Gene Ontology"], max_text_links=10)
    carried = json.loads(json.dumps(sent.job_settings()))
    assert set(carried) == set(JOB_SETTINGS) and "threads" not in carried
    assert carried["annotations"] == ["Diseases", "Gene Ontology"]
    worker = FetchConfig().with_changes(threads=4).with_job_settings(carried)
    assert (worker.run.max_links, worker.run.javascript, worker.batching.efetch_batch) == (2, False, 50)
    assert (worker.run.annotations, worker.run.max_text_links) == (sent.run.annotations, 10)
    assert worker.run.threads == 4  # the worker's own


def test_a_job_naming_a_worker_s_own_setting_or_a_bad_value_is_refused():
    with pytest.raises(ValueError, match="^a job names settings a worker does not take from a job: threads$"):
        FetchConfig().with_job_settings({"threads": 2, "max_links": 1})
    with pytest.raises(ValueError, match="^javascript must be true or false, got 'false'$"):
        FetchConfig().with_job_settings({"javascript": "false"})
