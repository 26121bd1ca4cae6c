"""Webpages and docs (tool homepages, documentation pages): one fetched page with its title, text and HTTP facts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pubfetch.model.entry import FetchState
from pubfetch.model.timefmt import instant_human

if TYPE_CHECKING:
    from pubfetch.fetcher_args import FetcherArgs


@dataclass
class Webpage:
    """A page as fetched. Docs are Webpages kept in their own table, so the same class serves both."""

    start_url: str = ""
    final_url: str = ""
    content_type: str = ""
    status_code: int = 0
    content_time: int = 0
    license: str = ""
    language: str = ""
    title: str = ""
    content: str = ""
    state: FetchState = field(default_factory=FetchState)

    def is_empty(self) -> bool:
        return not self.title and not self.content

    def is_broken(self) -> bool:
        """An HTTP failure; status 0 with a final URL is a page read another way (file, JavaScript), not broken."""
        return (self.status_code < 200 or self.status_code >= 300) and (self.status_code != 0 or not self.final_url)

    def is_usable(self, args: FetcherArgs) -> bool:
        return len(self.title) + len(self.content) >= args.webpage_min_length

    def is_final(self, args: FetcherArgs) -> bool:
        return not self.is_broken() and self.is_usable(args) and bool(self.content)

    def status(self, args: FetcherArgs) -> str:
        """PubFetcher's Webpage.getStatusString: "broken" only for a broken page that is also unusable; an error
        status that came with usable content (a soft 404 serving the real page) is told by its content."""
        usable = self.is_usable(args)
        if self.is_broken() and not usable:
            return "broken"
        if self.is_empty() and not usable:
            return "empty"
        if not usable:
            return "non-usable"
        return "final" if self.is_final(args) else "non-final"

    def should_replace(self, old: Webpage | None, args: FetcherArgs) -> bool:
        """Whether this freshly fetched page replaces the stored one: never trade a good page for a worse fetch."""
        if old is None:
            return True
        if self.is_final(args):
            return True
        if not self.is_empty() and not old.is_final(args):
            return True
        return self.is_empty() and old.is_empty()

    def to_json(self, args: FetcherArgs | None = None, computed: bool = True) -> dict[str, Any]:
        if computed and args is None:
            from pubfetch.fetcher_args import FetcherArgs

            args = FetcherArgs()
        d: dict[str, Any] = self.state.to_json()
        d.update(startUrl=self.start_url, finalUrl=self.final_url, contentType=self.content_type,
                 statusCode=self.status_code, contentTime=self.content_time,
                 contentTimeHuman=instant_human(self.content_time), license=self.license, language=self.language,
                 titleLength=len(self.title), contentLength=len(self.content), title=self.title)
        if computed:
            assert args is not None
            d.update(empty=self.is_empty(), usable=self.is_usable(args), final=self.is_final(args),
                     broken=self.is_broken())
        d["content"] = self.content
        return d

    def plain_json(self) -> dict[str, str]:
        return {"startUrl": self.start_url, "title": self.title, "content": self.content}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Webpage:
        return cls(start_url=d.get("startUrl", "") or "", final_url=d.get("finalUrl", "") or "",
                   content_type=d.get("contentType", "") or "", status_code=int(d.get("statusCode", 0)),
                   content_time=int(d.get("contentTime", 0)), license=d.get("license", "") or "",
                   language=d.get("language", "") or "", title=d.get("title", "") or "",
                   content=d.get("content", "") or "", state=FetchState.from_json(d))
