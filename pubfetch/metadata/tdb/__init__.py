"""Title database (TDB): parse LOCKSS ``.tdb`` files into publishers, titles and archival units (AUs).

A title database lists, per publisher and title, the AUs a network preserves, with each AU's plugin, parameters and
bibliographic attributes. pubfetch reads it to fill bibliographic defaults into extracted metadata (what LOCKSS'
BaseArticleMetadataExtractor does with ``TdbAu``) and to build AU configurations and ids (spec lockss.md section 10).

The file format is described in :mod:`pubfetch.metadata.tdb.parser`.

Public API:

* ``parse_tdb(text, source="<string>") -> Tdb``, ``load_tdb(path) -> Tdb``, ``load_tdb_files(paths) -> Tdb``.
* :class:`Tdb`: ``publishers``, ``titles``, ``aus`` (file order), ``extend(other)``, ``find_au(plugin_id, params)``.
* :class:`TdbPublisher` (``name``, ``props``), :class:`TdbTitle` (``name``, ``publisher``, ``props``, ``issn``,
  ``eissn``, ``issnl``, ``publisher_name``), :class:`TdbAu` with ``settings`` (every key as written, inherited ones
  included) and accessors: ``name``, ``plugin``, ``status``, ``params``, ``nondef_params``, ``param(k)``, ``attrs``,
  ``attr(k)``, ``publisher_name``, ``is_unknown_publisher``, ``provider_name``, ``print_issn``, ``eissn``, ``issnl``,
  ``issn`` (ISSN-L, else print, else e-ISSN, well-formed only), ``print_isbn``, ``eisbn``, ``isbn``,
  ``publication_type``, ``publication_title``, ``series_title``, ``year``/``start_year``, ``volume``/``start_volume``,
  ``issue``/``start_issue``, ``edition``, ``proprietary_id``, ``proprietary_series_id``, ``is_down``,
  ``au_config(descriptors)`` and ``au_id(descriptors=None)``.
* ``range_set_start(text)``, ``range_set_end(text)``: the first and last value of a range set ("2003-2004" ->
  "2003" / "2004"; Roman numerals count as numbers: "MCMLXXI-1977" -> "MCMLXXI"); ``coverage_includes(text, value)``.
* TdbAu ranges and coverage (LOCKSS TdbAu): ``end_year``/``end_volume``/``end_issue``, ``includes_year(y)``,
  ``includes_volume(v)``, ``includes_issue(i)``, ``coverage_depth`` (attribute ``au_coverage_depth``, default
  ``fulltext``), ``is_serial`` (journal or bookSeries); value equality (plugin, parameters, name, attributes and
  other settings; LOCKSS' TdbAu.equals). Within one database a second AU with the plugin and parameters of another is
  a :class:`TdbError` (LOCKSS' Tdb.addTdbAu), even when it repeats the first exactly; :func:`load_tdb_files` merges
  the files' databases as LOCKSS' Tdb.copyFrom does: an AU whose plugin and parameters an earlier file already gave
  is left out, with an error logged when its name, title or publisher differ.

Accessor rules (LOCKSS TdbAu): attributes are ``attr[k]`` settings, and the AU-level keys ``year``, ``volume``,
``issue``, ``edition``, ``isbn`` and ``eisbn`` (what LOCKSS' tdb tools turn into attributes) unless ``attr[k]`` is set;
publication type is the ``type`` setting, else ``bookSeries`` with an ISBN and an ISSN, ``book`` with an ISBN only, else
``journal``; year is the year attribute, else ``param[year]``; volume the attribute, else ``param[volume_name]``,
``param[volume_str]``, ``param[volume]``; issue the attribute, else ``param[issue]``, ``num_issue_range``,
``issue_set``, ``issue_no``, ``issues``, ``issue_no.``, ``issue_dir``; proprietary ids come from ``journal_id``,
``journal_code``, ``journal_abbr`` (attribute first, then parameter; ``book_*`` for books).

The rooms: :mod:`~pubfetch.metadata.tdb.model` (publishers, titles, AUs and their accessors, the database),
:mod:`~pubfetch.metadata.tdb.ranges` (range sets and coverage, LOCKSS' BibliographicUtil) and
:mod:`~pubfetch.metadata.tdb.parser` (the ``.tdb`` language).
"""

from pubfetch.metadata.tdb.model import Tdb, TdbAu, TdbError, TdbPublisher, TdbTitle
from pubfetch.metadata.tdb.parser import load_tdb, load_tdb_files, parse_tdb
from pubfetch.metadata.tdb.ranges import coverage_includes, range_set_end, range_set_start

__all__ = [
    "Tdb",
    "TdbAu",
    "TdbError",
    "TdbPublisher",
    "TdbTitle",
    "coverage_includes",
    "load_tdb",
    "load_tdb_files",
    "parse_tdb",
    "range_set_end",
    "range_set_start",
]
