"""LOCKSS' BaseArticleMetadataExtractor: the finished records of one article.

It runs the file extractor on the CU of one role of an :class:`~pubfetch.metadata.article_files.ArticleFiles`
(default: the full text), then completes every record with title-database defaults and checks its access URL. When
the role is missing, no extractor fits, or reading fails with an I/O error, it emits one empty record for the
article, so the article is still listed with title-database data.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from pubfetch.metadata import fields as mf
from pubfetch.metadata.archival_unit import ArchivalUnit
from pubfetch.metadata.article_files import ArticleFiles
from pubfetch.metadata.article_metadata import ArticleMetadata
from pubfetch.metadata.extractors.factory import ExtractorFactory, default_factory
from pubfetch.metadata.extractors.target import MetadataTarget
from pubfetch.metadata.sources import CachedUrl

__all__ = ["BaseArticleMetadataExtractor"]

log = logging.getLogger(__name__)


class BaseArticleMetadataExtractor:
    """LOCKSS' BaseArticleMetadataExtractor (see the module docstring). ``role`` None means the full-text CU;
    ``prefer_tdb_publisher`` makes a known title-database publisher (and provider) replace extracted ones."""

    def __init__(self, role: str | None = None, *, factory: ExtractorFactory | None = None,
                 add_tdb_defaults: bool = True, check_access_url: bool = True,
                 prefer_tdb_publisher: bool = False) -> None:
        self.role = role
        self.factory = factory if factory is not None else default_factory()
        self.add_tdb_defaults = add_tdb_defaults
        self.check_access_url = check_access_url
        self.prefer_tdb_publisher = prefer_tdb_publisher

    def cu_to_extract(self, af: ArticleFiles) -> CachedUrl | None:
        return af.get_role_cu(self.role) if self.role is not None else af.full_text_cu

    def extract(self, target: MetadataTarget | None, af: ArticleFiles, au: ArchivalUnit) -> list[ArticleMetadata]:
        """The finished records of one article (usually one)."""
        target = target or MetadataTarget()
        cu = self.cu_to_extract(af)
        if cu is not None:
            extractor = self.factory.for_cu(cu)
            if extractor is not None:
                try:
                    records = extractor.extract(target, cu)
                except OSError as e:
                    log.warning("%s: cannot extract metadata (%s); emitting title-database data only", cu.url, e)
                else:
                    return [self.finish(af, cu, am, au) for am in records]
        else:
            cu = af.full_text_cu
            log.debug("article %s has no %s CU; using the full text", af.full_text_url, self.role)
        if cu is None:
            return []
        return [self.finish(af, cu, ArticleMetadata(), au)]

    def finish(self, af: ArticleFiles, cu: CachedUrl, am: ArticleMetadata, au: ArchivalUnit) -> ArticleMetadata:
        """What happens to every emitted record: title-database defaults, then the access URL check."""
        if self.add_tdb_defaults:
            self.add_tdb_defaults_to(af, cu, am, au)
        if self.check_access_url:
            self.check_access_url_of(af, cu, am, au)
        return am

    def add_tdb_defaults_to(self, af: ArticleFiles, cu: CachedUrl, am: ArticleMetadata, au: ArchivalUnit) -> None:
        """Fill what extraction did not give (valid values are never replaced, invalid ones are)."""
        tdb_au = au.tdb_au
        if tdb_au is None:
            am.put_if_better(mf.FIELD_PROVIDER, am.get(mf.FIELD_PUBLISHER))
        else:
            if not tdb_au.is_unknown_publisher and self.prefer_tdb_publisher:
                am.replace(mf.FIELD_PUBLISHER, tdb_au.publisher_name)
                am.replace(mf.FIELD_PROVIDER, tdb_au.provider_name)
            else:
                am.put_if_better(mf.FIELD_PUBLISHER, tdb_au.publisher_name)
                am.put_if_better(mf.FIELD_PROVIDER, tdb_au.provider_name)
            if not au.bulk_content:
                defaults: Iterable[tuple[mf.MetadataField, Callable[[], str | None]]] = (
                    (mf.FIELD_ISBN, lambda: tdb_au.print_isbn), (mf.FIELD_EISBN, lambda: tdb_au.eisbn),
                    (mf.FIELD_ISSN, lambda: tdb_au.print_issn), (mf.FIELD_EISSN, lambda: tdb_au.eissn),
                    (mf.FIELD_DATE, lambda: tdb_au.start_year), (mf.FIELD_VOLUME, lambda: tdb_au.start_volume),
                    (mf.FIELD_ISSUE, lambda: tdb_au.start_issue),
                    (mf.FIELD_PUBLICATION_TITLE, lambda: tdb_au.publication_title),
                    (mf.FIELD_PROPRIETARY_IDENTIFIER, lambda: tdb_au.proprietary_id),
                    (mf.FIELD_PUBLICATION_TYPE, lambda: tdb_au.publication_type),
                    (mf.FIELD_SERIES_TITLE, lambda: tdb_au.series_title),
                    (mf.FIELD_PROPRIETARY_SERIES_IDENTIFIER, lambda: tdb_au.proprietary_series_id),
                )
                for field, value in defaults:
                    am.put_if_better(field, value())
        am.put_if_better(mf.FIELD_ACCESS_URL, af.full_text_url)

    def check_access_url_of(self, af: ArticleFiles, cu: CachedUrl, am: ArticleMetadata, au: ArchivalUnit) -> None:
        """Make ``access.url`` a URL of this AU: set it to the full-text URL (else the CU's) when missing, and
        replace it when the AU holds no content at it."""
        access = am.get(mf.FIELD_ACCESS_URL)
        fallback = af.full_text_url or cu.url
        if access is None:
            am.put(mf.FIELD_ACCESS_URL, fallback)
        elif not au.has_content(access):
            log.debug("access.url %s is not in the AU; using %s", access, fallback)
            am.replace(mf.FIELD_ACCESS_URL, fallback)
