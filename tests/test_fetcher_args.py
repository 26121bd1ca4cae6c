"""``pubfetch.fetcher_args``, where the code and library users import PubFetcher's parameters from: the very record
the settings tree declares, and its reader of PubFetcher's text forms."""

from __future__ import annotations

import pubfetch
from pubfetch.config import FetchConfig
from pubfetch.config.defaults import FetcherArgs as Declared
from pubfetch.fetcher_args import FetcherArgs, parse_fetcher_option


def test_the_record_imported_here_is_the_settings_tree_s_fetching_record() -> None:
    assert FetcherArgs is Declared is pubfetch.FetcherArgs
    assert type(FetchConfig().fetching) is FetcherArgs


def test_a_pubfetcher_option_read_here_changes_the_tree_by_its_field() -> None:
    name, value = parse_fetcher_option("--emptyCooldown", "1d")
    assert FetchConfig().with_changes(**{name: value}).fetching.empty_cooldown == 1440
