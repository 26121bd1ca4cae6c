"""Pure parsers: bytes or text of one response in, :class:`~pubfetch.model.record.ArticleRecord` (or terms, links,
text) out; no network, no database, no merging into publications (:mod:`pubfetch.model.merge` does that).

One module per format (europepmc, jats, pubmed, pubmed_html, annotations, unpaywall, meta, scrape, clean, pdf);
nothing is imported here, so that a caller pays only for the parsers it uses.
"""

__all__: list[str] = []
