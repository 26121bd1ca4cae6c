"""YAML reading for files a user hands over (config, scraping rules): safe tags only and no aliases.

``yaml.safe_load`` already refuses ``!!python`` tags, but it expands aliases: nine nested levels of ``&a [*b, *b, ...]``
("billion laughs") under any accepted key make a few hundred bytes grow into gigabytes of lists before a single value
is checked. Neither pubfetch's config nor its rule files need anchors, so an alias is refused where it appears.

Two more things safe_load lets through: nesting (200,000 ``[`` end in a RecursionError deep in the composer, an
internal error instead of a message) is refused past :data:`MAX_DEPTH` levels, and a key given twice in one mapping
(safe_load keeps the last: ``allow_private_addresses: false`` then ``true`` would turn the guard off unseen) is
refused with its line.
"""

from __future__ import annotations

from typing import Any, Final

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent, MappingStartEvent, SequenceStartEvent
from yaml.nodes import MappingNode, Node, ScalarNode

#: Deepest nesting of lists and mappings accepted (pubfetch's files use four or five levels).
MAX_DEPTH: Final = 64


class NoAliasLoader(yaml.SafeLoader):
    """A SafeLoader that stops at the first alias (``*name``), at nesting deeper than :data:`MAX_DEPTH` and at a key
    given twice in one mapping, with a YAML error pointing at it."""

    _depth = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(AliasEvent):
            event = self.peek_event()
            raise ComposerError(None, None, f"aliases (*{event.anchor}) are not accepted in this file",
                                event.start_mark)
        if not self.check_event(MappingStartEvent, SequenceStartEvent):
            return super().compose_node(parent, index)
        if self._depth >= MAX_DEPTH:
            raise ComposerError(None, None, f"nested deeper than {MAX_DEPTH} levels", self.peek_event().start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[object] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, ScalarNode):
                if key_node.value in seen:
                    raise ConstructorError(None, None, f"the key '{key_node.value[:60]}' is given twice",
                                           key_node.start_mark)
                seen.add(key_node.value)
        return super().construct_mapping(node, deep=deep)


def load(text: str) -> Any:
    """The single YAML document of ``text`` (safe tags, no aliases); raises ``yaml.YAMLError``."""
    return yaml.load(text, Loader=NoAliasLoader)  # noqa: S506 - NoAliasLoader is a SafeLoader
