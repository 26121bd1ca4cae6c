"""Snowballing: from seed papers to the papers citing them and cited by them, to a depth, each paper once, with the
citation edges kept (:mod:`.walk`; the links read in :mod:`.links`, the papers by ID form in :mod:`.papers`, a
fetch run's snowball in :mod:`.fetching`)."""

from pubfetch.snowball.fetching import snowball_fetch
from pubfetch.snowball.papers import PaperIndex
from pubfetch.snowball.walk import DEFAULT_MAX_HITS, SnowballPlan, SnowballTooLarge, snowball

__all__ = ["DEFAULT_MAX_HITS", "PaperIndex", "SnowballPlan", "SnowballTooLarge", "snowball", "snowball_fetch"]
