"""Bulk imports: PubMed's baseline and update files, and open-access full-text packages, merged into a database as
the fetch would merge what the services answer (docs/bulk.md).

``medline`` and ``jatsfiles`` read files element by element; ``apply`` merges chunks of records in one transaction;
``ledger`` keeps the files imported and each PMID's version; ``sources`` turns arguments (files, directories, URLs)
into checked local files; ``runner`` runs the files in worker processes (a queued import's tasks are
:mod:`pubfetch.distributed.bulktask`).
"""

from __future__ import annotations

from pubfetch.bulk.runner import FileJob, FileOutcome, ImportReport, import_file, run_import

__all__ = ["FileJob", "FileOutcome", "ImportReport", "import_file", "run_import"]
