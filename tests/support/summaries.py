"""Publications as a run's summary counts them: final ones holding a failed request or not, fetched some minutes ago
with some retries spent, and the summary's way of writing a time."""

from __future__ import annotations

from datetime import UTC, datetime

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication

ARGS = FetcherArgs()
MINUTE_MS = 60_000


def utc(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def final_publication(pmid: str, *, failed_request: bool, fetched_minutes_ago: int = 0, retries: int = 0) -> \
        Publication:
    """A publication with a final title, abstract and full text; ``failed_request``: one of its requests failed."""
    pub = Publication()
    pub.set_pmid(pmid, PartType.europepmc, "https://www.ebi.ac.uk/europepmc/", ARGS)
    pub.set_title("A final title", PartType.europepmc, "https://www.ebi.ac.uk/europepmc/", ARGS)
    pub.set_abstract("An abstract. " * 40, PartType.europepmc, "https://www.ebi.ac.uk/europepmc/", ARGS)
    pub.set_fulltext("Full text. " * 800, PartType.europepmc_xml, "https://www.ebi.ac.uk/europepmc/", ARGS)
    pub.state.fetch_time = int(datetime.now(UTC).timestamp() * 1000) - fetched_minutes_ago * MINUTE_MS
    pub.state.retry_counter = retries
    if failed_request:
        pub.state.failed("not found")
    return pub
