"""PubFetcher's fetching parameters under the name the code and library users import them by
(``from pubfetch.fetcher_args import FetcherArgs``): the record is declared with the other settings in
:mod:`pubfetch.config.defaults`, and its text forms are read by :mod:`pubfetch.config.fetching`.
"""

from pubfetch.config.defaults import FetcherArgs
from pubfetch.config.fetching import parse_fetcher_option

__all__ = ["FetcherArgs", "parse_fetcher_option"]
