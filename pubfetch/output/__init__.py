"""Writers of entries, ID lists, counts and top hosts in text, HTML, JSON, JSON Lines and metadata records."""

__all__: list[str] = []
