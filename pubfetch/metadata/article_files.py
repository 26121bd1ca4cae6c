"""ArticleFiles: the URLs (cached URLs) that together make up one article, each labelled with a role.

An article iterator groups an archival unit's URLs into one :class:`ArticleFiles` per article ("article" meaning any
item): its full text HTML page, its PDF, its abstract page, its citation files, ... The article metadata extractor then
picks the URL playing the role it wants (usually :data:`ROLE_ARTICLE_METADATA`) and reads metadata from it. The role
strings are those of LOCKSS' ``org.lockss.plugin.ArticleFiles`` (spec lockss.md section 5), so plugin definitions and
debugging output read the same in both systems.

One URL has a special status: the *full text CU*, the designated best full-text rendition. It is a separate slot, not
a role; :meth:`ArticleFiles.is_empty` is true only when both it and the role map are empty. Roles map to cached URLs
or to any other object a plugin wants to attach (LOCKSS allows arbitrary objects too).

Public API: the ``ROLE_*`` constants, :data:`ALL_ROLES`, :data:`FULL_TEXT_ROLES_BY_PREFERENCE` (HTML, then PDF, then
EPUB, then XML: the order LOCKSS' own plugins prefer), ``is_known_role(role)`` and :class:`ArticleFiles` with
``full_text_cu`` / ``full_text_url``, ``set_full_text_cu``, ``set_role_cu`` / ``get_role_cu`` / ``get_role_url``,
``set_role`` / ``get_role``, ``has_role``, ``roles()``, ``role_map()``, ``is_empty()`` and ``to_json()``.
"""

from __future__ import annotations

from typing import Any

from pubfetch.metadata.sources import CachedUrl

__all__ = [
    "ALL_ROLES",
    "FULL_TEXT_ROLES_BY_PREFERENCE",
    "ROLE_ABSTRACT",
    "ROLE_ARTICLE_HANDLE",
    "ROLE_ARTICLE_METADATA",
    "ROLE_CITATION",
    "ROLE_CITATION_BIBTEX",
    "ROLE_CITATION_ENDNOTE",
    "ROLE_CITATION_RIS",
    "ROLE_FIGURES",
    "ROLE_FIGURES_TABLES",
    "ROLE_FULL_TEXT_EPUB",
    "ROLE_FULL_TEXT_HTML",
    "ROLE_FULL_TEXT_HTML_LANDING",
    "ROLE_FULL_TEXT_MOBILE",
    "ROLE_FULL_TEXT_PDF",
    "ROLE_FULL_TEXT_PDF_LANDING",
    "ROLE_FULL_TEXT_XML",
    "ROLE_ISSUE_METADATA",
    "ROLE_REFERENCES",
    "ROLE_SUPPLEMENTARY_MATERIALS",
    "ROLE_TABLES",
    "ArticleFiles",
    "is_known_role",
]

ROLE_ABSTRACT = "Abstract"
ROLE_REFERENCES = "References"
ROLE_CITATION = "Citation"
ROLE_CITATION_BIBTEX = "CitationBibtex"
ROLE_CITATION_RIS = "CitationRis"
ROLE_CITATION_ENDNOTE = "CitationEndnote"
ROLE_SUPPLEMENTARY_MATERIALS = "SupplementaryMaterials"
ROLE_FIGURES = "Figures"
ROLE_FIGURES_TABLES = "FiguresTables"
"""Deprecated in LOCKSS (use :data:`ROLE_FIGURES` and :data:`ROLE_TABLES`); kept so old plugin definitions load."""
ROLE_TABLES = "Tables"
ROLE_FULL_TEXT_HTML = "FullTextHtml"
ROLE_FULL_TEXT_XML = "FullTextXml"
ROLE_FULL_TEXT_EPUB = "FullTextEpub"
ROLE_FULL_TEXT_MOBILE = "FullTextMobile"
ROLE_FULL_TEXT_HTML_LANDING = "FullTextHtmlLanding"
ROLE_FULL_TEXT_PDF = "FullTextPdfFile"
ROLE_FULL_TEXT_PDF_LANDING = "FullTextPdfLanding"
ROLE_ARTICLE_METADATA = "ArticleMetadata"
ROLE_ISSUE_METADATA = "IssueMetadata"
ROLE_ARTICLE_HANDLE = "ArticleHandle"

ALL_ROLES: tuple[str, ...] = (
    ROLE_ABSTRACT, ROLE_REFERENCES, ROLE_CITATION, ROLE_CITATION_BIBTEX, ROLE_CITATION_RIS, ROLE_CITATION_ENDNOTE,
    ROLE_SUPPLEMENTARY_MATERIALS, ROLE_FIGURES, ROLE_FIGURES_TABLES, ROLE_TABLES, ROLE_FULL_TEXT_HTML,
    ROLE_FULL_TEXT_XML, ROLE_FULL_TEXT_EPUB, ROLE_FULL_TEXT_MOBILE, ROLE_FULL_TEXT_HTML_LANDING, ROLE_FULL_TEXT_PDF,
    ROLE_FULL_TEXT_PDF_LANDING, ROLE_ARTICLE_METADATA, ROLE_ISSUE_METADATA, ROLE_ARTICLE_HANDLE,
)  # fmt: skip
"""Every role string LOCKSS defines, in its declaration order."""

FULL_TEXT_ROLES_BY_PREFERENCE: tuple[str, ...] = (
    ROLE_FULL_TEXT_HTML, ROLE_FULL_TEXT_PDF, ROLE_FULL_TEXT_EPUB, ROLE_FULL_TEXT_XML,
)
"""The full-text roles in the order LOCKSS plugins prefer them (richest rendering in a browser first)."""


def is_known_role(role: str) -> bool:
    """Whether ``role`` is one of the LOCKSS role strings (exact case)."""
    return role in ALL_ROLES


class ArticleFiles:
    """The files of one article: a full-text CU slot plus a role -> CU (or any object) map, in insertion order."""

    def __init__(self, full_text_cu: CachedUrl | None = None) -> None:
        self._full_text_cu: CachedUrl | None = full_text_cu
        self._roles: dict[str, Any] = {}

    # --- the full text ---

    @property
    def full_text_cu(self) -> CachedUrl | None:
        return self._full_text_cu

    def set_full_text_cu(self, cu: CachedUrl | None) -> None:
        """Designate (or, with None, clear) the full-text CU."""
        self._full_text_cu = cu

    @property
    def full_text_url(self) -> str | None:
        """The URL of the full-text CU, or None."""
        return self._full_text_cu.url if self._full_text_cu is not None else None

    # --- roles ---

    def _check_role(self, role: str) -> None:
        if not isinstance(role, str) or not role:
            raise ValueError(f"a role must be a non-empty string, not {role!r}")

    def set_role(self, role: str, value: Any) -> None:
        """Attach any object to ``role`` (replacing what was there); None removes the role."""
        self._check_role(role)
        if value is None:
            self._roles.pop(role, None)
        else:
            self._roles[role] = value

    def set_role_cu(self, role: str, cu: CachedUrl | None) -> None:
        """Attach a cached URL to ``role``; None removes the role."""
        self.set_role(role, cu)

    def get_role(self, role: str) -> Any:
        """Whatever is attached to ``role``, or None."""
        return self._roles.get(role)

    def get_role_cu(self, role: str) -> CachedUrl | None:
        """The cached URL attached to ``role``; None when the role is missing or holds something else."""
        value = self._roles.get(role)
        return value if isinstance(value, CachedUrl) else None

    def get_role_url(self, role: str) -> str | None:
        """The URL of the cached URL attached to ``role``, or None."""
        cu = self.get_role_cu(role)
        return cu.url if cu is not None else None

    def has_role(self, role: str) -> bool:
        return role in self._roles

    def roles(self) -> list[str]:
        """The roles set, in the order they were first set."""
        return list(self._roles)

    def role_map(self) -> dict[str, Any]:
        """A copy of the role map."""
        return dict(self._roles)

    def is_empty(self) -> bool:
        """True only when there is neither a full-text CU nor any role."""
        return self._full_text_cu is None and not self._roles

    # --- output ---

    def to_json(self) -> dict[str, Any]:
        """``{"full_text": url or None, "roles": {role: url or str(value)}}``; role keys sorted."""
        roles: dict[str, Any] = {}
        for role in sorted(self._roles):
            value = self._roles[role]
            url = getattr(value, "url", None)
            roles[role] = url if isinstance(url, str) else str(value)
        return {"full_text": self.full_text_url, "roles": roles}

    def __repr__(self) -> str:
        roles = ", ".join(f"{role}: {getattr(value, 'url', value)}" for role, value in self._roles.items())
        return f"ArticleFiles(full_text={self.full_text_url!r}, roles={{{roles}}})"
