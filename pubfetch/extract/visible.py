"""What a reader does not see as text: hidden elements and menus that are only lists of links.

A page's jump menus ("Top of Page / Abstract / Introduction / ... / References"), hidden by an inline ``display:
none`` until a click, would otherwise be read as the first lines of an abstract or body.
"""

from __future__ import annotations

from bs4.element import Tag

from pubfetch.rules.page_index import PageIndex, find_named

__all__ = ["drop_hidden_menus", "is_hidden", "is_link_list", "is_shown"]


def is_hidden(tag: Tag) -> bool:
    """Hidden by an inline style or by the ``hidden`` / ``aria-hidden`` attributes."""
    style = str(tag.get("style") or "").replace(" ", "").lower()
    return "display:none" in style or tag.has_attr("hidden") or tag.get("aria-hidden") == "true"


def is_shown(tag: Tag) -> bool:
    """Neither the element nor any element around it is hidden (:func:`is_hidden`; no CSS is computed)."""
    return not is_hidden(tag) and not any(isinstance(p, Tag) and is_hidden(p) for p in tag.parents)


def is_link_list(tag: Tag) -> bool:
    """A list (``ul``/``ol``) whose items hold nothing but links: a jump menu or a list of sections."""
    if tag.name not in ("ul", "ol"):
        return False
    items = tag.find_all("li")
    return bool(items) and all(
        "".join(a.get_text() for a in li.find_all("a")).strip() == li.get_text().strip() for li in items)


def drop_hidden_menus(root: Tag, index: PageIndex | None = None) -> None:
    """Remove, in place, hidden lists of links (a hidden block of text may be a tab a script shows, so it stays).
    ``index``: the page's, which finds the lists without a walk and is told what is taken out."""
    for tag in find_named(root, ("ul", "ol"), index):
        if not tag.decomposed and is_hidden(tag) and is_link_list(tag):
            if index is None:
                tag.decompose()
            else:
                index.remove(tag)
