"""Endpoints: real defaults, PUBFETCH_*_URL environment overrides, keyword overrides; and that a client reaches them."""

from __future__ import annotations

import pytest

from pubfetch.config import Endpoints, FetchConfig
from pubfetch.net.outcome import OutcomeKind
from support.loopback import Reply
from support.netsupport import FastServer as LoopbackServer
from support.netsupport import make_client


def test_defaults_are_the_real_services() -> None:
    e = FetchConfig.from_env({}, config_file="").endpoints
    assert e == Endpoints()
    assert e.europepmc == "https://www.ebi.ac.uk/europepmc/webservices/rest/"
    assert e.europepmc_annotations == "https://www.ebi.ac.uk/europepmc/annotations_api/"
    assert e.eutils == "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"
    assert e.pubmed == "https://pubmed.ncbi.nlm.nih.gov/"
    assert e.doi == "https://doi.org/"
    assert e.unpaywall == "https://api.unpaywall.org/v2/"
    assert (e.crossref, e.openalex, e.datacite, e.biorxiv) == (
        "https://api.crossref.org/", "https://api.openalex.org/", "https://api.datacite.org/", "https://api.biorxiv.org/")
    assert e.hosts() == frozenset({"www.ebi.ac.uk", "eutils.ncbi.nlm.nih.gov", "pubmed.ncbi.nlm.nih.gov", "doi.org",
                                   "api.unpaywall.org", "api.crossref.org", "api.openalex.org", "api.datacite.org",
                                   "api.biorxiv.org"})


def test_env_var_names() -> None:
    assert Endpoints.env_var("europepmc") == "PUBFETCH_EUROPEPMC_URL"
    assert Endpoints.env_var("europepmc_annotations") == "PUBFETCH_EUROPEPMC_ANNOTATIONS_URL"


def test_environment_overrides_then_keywords_win() -> None:
    env = {"PUBFETCH_EUTILS_URL": "http://127.0.0.1:8001/eutils", "PUBFETCH_DOI_URL": "  http://mirror.example/doi/ ",
           "PUBFETCH_UNPAYWALL_URL": "", "UNRELATED": "x"}
    e = FetchConfig.from_env(env, config_file="", doi="http://other.example/resolver").endpoints
    assert e.eutils == "http://127.0.0.1:8001/eutils/"  # trailing slash added
    assert e.doi == "http://other.example/resolver/"  # keyword beats environment
    assert e.unpaywall == "https://api.unpaywall.org/v2/"  # an empty variable gives no setting


def test_process_environment_is_read_by_the_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PUBFETCH_EUROPEPMC_URL", "http://127.0.0.1:9999/rest/")
    assert FetchConfig.from_env(config_file="").endpoints.europepmc == "http://127.0.0.1:9999/rest/"


@pytest.mark.parametrize("bad", ["ftp://mirror.example/", "mirror.example/rest/", "http:///rest/", "file:///tmp/x/"])
def test_bad_endpoint_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="endpoint eutils must be an http\\(s\\) URL with a host"):
        FetchConfig.from_env({"PUBFETCH_EUTILS_URL": bad}, config_file="")


def test_unknown_keyword_is_refused() -> None:
    with pytest.raises(TypeError, match="unknown option 'europmc' \\(did you mean 'europepmc'\\?\\)"):
        FetchConfig().with_changes(europmc="http://x.example/")


def test_overridden_endpoint_is_used_by_concatenation() -> None:
    with LoopbackServer({"/eutils/efetch.fcgi": Reply(200, "<PubmedArticleSet/>", "text/xml")}) as server:
        e = FetchConfig.from_env({"PUBFETCH_EUTILS_URL": server.url("/eutils")}, config_file="").endpoints
        r = make_client(allow_private_addresses=False).get(e.eutils + "efetch.fcgi?retmode=xml&db=pubmed&id=1")
        (req,) = server.requests
    assert (r.kind, r.text) == (OutcomeKind.OK, "<PubmedArticleSet/>")
    assert req.query == {"retmode": ["xml"], "db": ["pubmed"], "id": ["1"]}
