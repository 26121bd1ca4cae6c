"""Every remote endpoint pubfetch talks to: the real default, overridable by code or environment.

Overrides serve mirrors, institutional caches, recorded-response servers in tests and benchmarks. Each base URL ends in
"/" so that resources build request URLs by plain concatenation (``endpoints.eutils + "efetch.fcgi?..."``).

Environment variables (read by :meth:`Endpoints.from_env`):

=================================  ==========================  ==============================================
variable                           field                       default
=================================  ==========================  ==============================================
PUBFETCH_EUROPEPMC_URL             europepmc                   https://www.ebi.ac.uk/europepmc/webservices/rest/
PUBFETCH_EUROPEPMC_ANNOTATIONS_URL europepmc_annotations       https://www.ebi.ac.uk/europepmc/annotations_api/
PUBFETCH_EUTILS_URL                eutils                      https://eutils.ncbi.nlm.nih.gov/entrez/eutils/
PUBFETCH_PUBMED_URL                pubmed                      https://pubmed.ncbi.nlm.nih.gov/
PUBFETCH_DOI_URL                   doi                         https://doi.org/
PUBFETCH_UNPAYWALL_URL             unpaywall                   https://api.unpaywall.org/v2/
=================================  ==========================  ==============================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from pubfetch.net.urls import HTTP_SCHEMES, hostname, scheme

EUROPEPMC_URL: Final = "https://www.ebi.ac.uk/europepmc/webservices/rest/"
EUROPEPMC_ANNOTATIONS_URL: Final = "https://www.ebi.ac.uk/europepmc/annotations_api/"
EUTILS_URL: Final = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"
#: PubMed web pages; PubFetcher's https://www.ncbi.nlm.nih.gov/pubmed/?term=<PMID> now redirects here.
PUBMED_URL: Final = "https://pubmed.ncbi.nlm.nih.gov/"
DOI_URL: Final = "https://doi.org/"
UNPAYWALL_URL: Final = "https://api.unpaywall.org/v2/"

ENV_PREFIX: Final = "PUBFETCH_"


@dataclass(frozen=True)
class Endpoints:
    """Base URLs of the remote services (each ends in "/")."""

    europepmc: str = EUROPEPMC_URL
    europepmc_annotations: str = EUROPEPMC_ANNOTATIONS_URL
    eutils: str = EUTILS_URL
    pubmed: str = PUBMED_URL
    doi: str = DOI_URL
    unpaywall: str = UNPAYWALL_URL

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if scheme(value) not in HTTP_SCHEMES or not hostname(value):
                raise ValueError(f"endpoint {f.name} must be an http(s) URL with a host, got {value!r}")
            if not value.endswith("/"):
                object.__setattr__(self, f.name, value + "/")

    @staticmethod
    def env_var(field_name: str) -> str:
        """Environment variable overriding a field: ``europepmc`` -> ``PUBFETCH_EUROPEPMC_URL``."""
        return f"{ENV_PREFIX}{field_name.upper()}_URL"

    @classmethod
    def from_env(cls, environ: Mapping[str, str], **overrides: str) -> Endpoints:
        """Defaults, then the ``PUBFETCH_*_URL`` variables of ``environ`` (the configuration module passes the
        process's), then keyword overrides (empty values ignored)."""
        env = environ
        values: dict[str, str] = {}
        for f in dataclasses.fields(cls):
            from_env = env.get(cls.env_var(f.name), "").strip()
            if from_env:
                values[f.name] = from_env
        unknown = set(overrides) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise TypeError(f"unknown endpoints: {', '.join(sorted(unknown))}")
        values.update({k: v for k, v in overrides.items() if v})
        return cls(**values)

    def hosts(self) -> frozenset[str]:
        """Host names of all endpoints (e.g. to allow a locally mirrored service past the private-address check)."""
        return frozenset(h for f in dataclasses.fields(self) if (h := hostname(getattr(self, f.name))))
