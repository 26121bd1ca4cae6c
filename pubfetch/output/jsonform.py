"""JSON objects of entries (full, ``--plain``, ``--out-part``) and the JSON text conventions of the document.

The full form is the model's own ``to_json`` so that it reads back with ``Publication.from_json``/``Webpage.from_json``;
this module only chooses between the forms and fixes how JSON text is written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pubfetch.ids import PublicationIds
from pubfetch.model.part_type import PartName
from pubfetch.model.publication import Publication
from pubfetch.model.webpage import Webpage
from pubfetch.output.common import Kind, in_order, resolve_args

if TYPE_CHECKING:
    from pubfetch.fetcher_args import FetcherArgs

INDENT = 2


def dumps(value: Any, pretty: bool = True) -> str:
    """JSON text: UTF-8 characters kept as they are (abstracts are full of them), indented or compact for JSON Lines."""
    if pretty:
        return json.dumps(value, ensure_ascii=False, indent=INDENT)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def publication_json(pub: Publication, args: FetcherArgs | None = None, plain: bool = False,
                     parts: Sequence[PartName] | None = None) -> dict[str, Any]:
    """One publication: everything, only part contents (``plain``), or only the selected parts (``parts``).

    With a part selection the metadata (fetch state, journal, ...) is left out, as in PubFetcher.
    """
    if parts is not None:
        chosen = in_order(parts)
        if plain:
            return pub.plain_json(chosen)
        a = resolve_args(args)
        return {n.value: pub.part(n).to_json(a) for n in chosen}
    if plain:
        return pub.plain_json()
    return pub.to_json(resolve_args(args))


def webpage_json(page: Webpage, args: FetcherArgs | None = None, plain: bool = False) -> dict[str, Any]:
    if plain:
        return page.plain_json()
    return page.to_json(resolve_args(args))


def entry_json(kind: Kind, entry: Publication | Webpage, args: FetcherArgs | None = None, plain: bool = False,
               parts: Sequence[PartName] | None = None) -> dict[str, Any]:
    """An entry of any kind; ``parts`` applies to publications only (webpages and docs have no parts)."""
    if kind == "publication":
        assert isinstance(entry, Publication)
        return publication_json(entry, args, plain, parts)
    assert isinstance(entry, Webpage)
    return webpage_json(entry, args, plain)


def ids_json(ids: PublicationIds, plain: bool = False) -> dict[str, str]:
    """A ``publicationIds`` item; without ``plain`` it also says where each ID was found."""
    return ids.to_dict(urls=not plain)
