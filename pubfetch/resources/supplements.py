"""``--supplements DIR``: the supplementary files of publications downloaded to ``DIR/<id>/<file name>``.

Opt-in, because a paper's supplements can weigh far more than the paper. Each file is asked as a PDF link is
(:func:`pubfetch.resources.site.fetch_pdf`): through the run's client, so with the address guard for URLs a source
gave (``untrusted``), the body size cap (``http.max_bytes``), the time limits and the per-host slots and rate limits;
unlike a page or PDF, a file of any media type is read (``any_media``).
``<id>`` is the publication's PMCID, else PMID, else DOI (:func:`~pubfetch.model.structure.folder_name`); the file
name is the last segment of the URL's path made safe, a name given twice in one paper getting ``_2``, ``_3``, ...
before its extension. A file is written under a temporary name and renamed when complete, so a failed download
leaves nothing half-written.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pubfetch.model.publication import Publication
from pubfetch.model.structure import Supplement, folder_name, safe_file_name
from pubfetch.net.outcome import NO_ENTRY
from pubfetch.outfiles import write_output_file
from pubfetch.resources.base import Context

__all__ = ["SupplementDownloads", "download_supplements", "supplement_targets"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SupplementDownloads:
    """What a download of supplements did: files written, and files that could not be fetched or written."""

    written: int = 0
    failed: int = 0


def supplement_targets(directory: Path, pub: Publication) -> list[tuple[Supplement, Path]]:
    """Each downloadable supplement of a publication (an http(s) URL) with the path it is written to."""
    name = folder_name(pub.pmcid.content, pub.pmid.content, pub.doi.content)
    if not name:
        return []
    out: list[tuple[Supplement, Path]] = []
    taken: set[str] = set()
    for index, item in enumerate(pub.supplements.items, start=1):
        if not item.url.lower().startswith(("http://", "https://")):
            continue
        file_name = safe_file_name(item.file_name or item.id or f"supplement_{index}")
        stem, dot, extension = file_name.rpartition(".")
        if not dot:
            stem, extension = file_name, ""
        candidate, count = file_name, 1
        while candidate.lower() in taken:
            count += 1
            candidate = f"{stem}_{count}.{extension}" if dot else f"{stem}_{count}"
        taken.add(candidate.lower())
        out.append((item, directory / name / candidate))
    return out


def _download(ctx: Context, item: Supplement, target: Path) -> bool:
    # a file beside the entry, not part of it: its failure marks nothing, so its line promises nothing
    result = ctx.client.get(item.url, publication=True, untrusted=True, any_media=True, entry=NO_ENTRY)
    if not result.ok:
        log.warning("supplementary file %s not downloaded: %s", item.url, result.brief())
        return False
    try:
        write_output_file(target, lambda f: f.write(result.body), binary=True)
    except OSError as e:
        log.warning("supplementary file %s not written to %s: %s", item.url, target, e.strerror or e)
        return False
    return True


def download_supplements(ctx: Context, publications: Sequence[Publication], directory: str | Path
                         ) -> SupplementDownloads:
    """Download every supplementary file of the publications under ``directory`` (on the run's threads)."""
    jobs = [job for pub in publications for job in supplement_targets(Path(directory), pub)]
    done = ctx.map(lambda job: _download(ctx, *job), jobs)
    return SupplementDownloads(written=sum(done), failed=len(done) - sum(done))
