"""Pages built to make a page reader slow: the shapes an adversary (or a broken publisher template) gives a page so that
a pattern backtracks or a loop over the page's elements meets every other element again.

Each builder takes the size of the repeated part, so a growth test can build the same shape at two sizes and compare
the costs; :data:`SHAPES` names every builder at the size that made the reader hang for minutes (the sizes are the red
team's, the pages 0.3-4 MB).
"""

from __future__ import annotations

from collections.abc import Callable

_PARAGRAPH = "<p>Sediment supply sets how fast a marsh builds up against the rising sea level of its estuary.</p>"


def _page(body: str, title: str = "A hostile page") -> str:
    return f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{body}</body></html>"


def trailing_marks_title(marks: int, mark: str = "*") -> str:
    """A title that ends in a run of footnote marks ("Title****...x"), the last character not a mark: the pattern
    that strips trailing marks must fail on it in linear time."""
    return "Tidal sediment supply controls marsh resilience " + mark * marks + "x"


def trailing_marks_page(marks: int) -> str:
    """A page whose title (meta tag, ``<title>`` and ``<h1>``) ends in a run of marks followed by a letter."""
    title = trailing_marks_title(marks, "\u2020")
    return (f"<!DOCTYPE html><html><head><title>{title}</title><meta name='citation_title' content='{title}'>"
            f"<meta property='og:title' content='{title} | Tidewater Press'></head><body><main><h1>{title}</h1>"
            f"{_PARAGRAPH * 20}</main></body></html>")


def sup_marks_heading(marks: int) -> str:
    """An ``<h1>`` followed by ``marks`` footnote ``<sup>*</sup>`` elements."""
    sups = "<sup>*</sup>" * marks
    return _page(f"<main><h1>Tidal sediment supply controls marsh resilience{sups}</h1>{_PARAGRAPH * 20}</main>")


def abstract_headings(count: int) -> str:
    """``count`` "Abstract" headings, each with a short paragraph after it."""
    block = "<h2>Abstract</h2><p>Marsh elevation kept pace with the sea where sediment supply was high.</p>"
    return _page(f"<h1>Tidal sediment supply controls marsh resilience</h1>{block * count}")


def references_headings(count: int) -> str:
    """``count`` "References" headings, each over a one-item list (the body finder's end markers)."""
    block = f"{_PARAGRAPH}<h2>References</h2><ol><li>Smith J. Marshes. 2020.</li></ol>"
    return _page(f"<article><h1>Tidal sediment supply controls marsh resilience</h1>{block * count}</article>")


def headings_against_title(headings: int, title_chars: int) -> str:
    """``headings`` ``<h1>`` elements of two words against a ``<title>`` of ``title_chars`` characters that holds
    neither word (each heading is looked for in the whole title)."""
    title = ("tidal flats " * (title_chars // 12 + 1))[:title_chars]
    return _page("<h1>Marsh sediment</h1>" * headings, title=title)


def nested_headers(depth: int) -> str:
    """``depth`` ``<header><h1>`` pairs, each inside the one before (what every heading's ancestors are walked for)."""
    return _page("<header><h1>Marsh sediment supply " * depth + "</h1></header>" * depth)


def tag_dense(size: int) -> str:
    """A page of about ``size`` bytes made of tiny paragraphs: the most elements per byte a parse can be given."""
    return _page("<p>a b.</p>" * (size // 10))


#: Every reader-hanging shape, at the size the red team used (the tag-dense page at the body cap).
SHAPES: dict[str, Callable[[], str]] = {
    "trailing_marks_page": lambda: trailing_marks_page(40),
    "sup_marks_heading": lambda: sup_marks_heading(20_000),
    "abstract_headings": lambda: abstract_headings(5_000),
    "references_headings": lambda: references_headings(20_000),
    "headings_against_title": lambda: headings_against_title(100_000, 2_000_000),
    "nested_headers": lambda: nested_headers(20_000),
    "tag_dense": lambda: tag_dense(50_000_000),  # the body cap's size
}
