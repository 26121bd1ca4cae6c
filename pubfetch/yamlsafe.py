"""YAML reading for files a user hands over (config, scraping rules): safe tags only and no aliases.

``yaml.safe_load`` already refuses ``!!python`` tags, but it expands aliases: nine nested levels of ``&a [*b, *b, ...]``
("billion laughs") under any accepted key make a few hundred bytes grow into gigabytes of lists before a single value
is checked. Neither pubfetch's config nor its rule files need anchors, so an alias is refused where it appears.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.events import AliasEvent
from yaml.nodes import Node


class NoAliasLoader(yaml.SafeLoader):
    """A SafeLoader that stops at the first alias (``*name``) with a ComposerError pointing at it."""

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(AliasEvent):
            event = self.peek_event()
            raise ComposerError(None, None, f"aliases (*{event.anchor}) are not accepted in this file",
                                event.start_mark)
        return super().compose_node(parent, index)


def load(text: str) -> Any:
    """The single YAML document of ``text`` (safe tags, no aliases); raises ``yaml.YAMLError``."""
    return yaml.load(text, Loader=NoAliasLoader)  # noqa: S506 - NoAliasLoader is a SafeLoader
