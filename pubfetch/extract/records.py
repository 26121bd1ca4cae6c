"""The record every parser returns (:class:`~pubfetch.model.record.ArticleRecord`) and the links it carries.

The shape belongs to the model (:mod:`pubfetch.model.record`), as does merging a record into a publication
(:mod:`pubfetch.model.merge`); parsers import the record from here or from the model. ``apply_record`` is re-exported
for older imports only: extract/ itself never merges.
"""

from __future__ import annotations

from pubfetch.model.merge import PartTypes, apply_record
from pubfetch.model.record import ArticleRecord, Link

__all__ = ["ArticleRecord", "Link", "PartTypes", "apply_record"]
