"""Bulk files shaped as NLM's and the open-access packages, built at test time from the corpus's recordings.

The corpus's efetch answers hold real ``PubmedArticle`` elements; a baseline file is them in one
``PubmedArticleSet`` (gzip, with its ``.md5`` as NLM publishes it), an update file a revised version of one of them
and a ``DeleteCitation`` of another. The JATS package is the corpus's Europe PMC full texts in a tar.gz, as PMC's OA
packages hold them, and the same in one gzip file of many ``<article>`` elements, as Europe PMC's bulk files do.
Nothing is written into the repository: every file goes under the test's own directory.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.loopback import LoopbackServer, Reply, Request

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "files"


def _recorded(kind: str) -> Path:
    """A directory of the corpus's recorded answers; without the corpus the test skips with conftest's one reason
    (``CORPUS_MISSING``, the same words, so the end-of-run line counts it with the others)."""
    if not CORPUS.parent.is_dir():
        import pytest

        pytest.skip(f"recorded-response corpus not found at {CORPUS.parent} (clone ../shared beside the repository "
                    "to run these)")
    return CORPUS / kind
_ARTICLE = re.compile(r"<PubmedArticle>.*?</PubmedArticle>", re.S)
_PMID = re.compile(r'<PMID Version="(\d+)">(\d+)</PMID>')
_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE PubmedArticleSet>\n<PubmedArticleSet>\n'


def pubmed_articles() -> list[str]:
    """The ``PubmedArticle`` elements of the corpus's efetch answers, by file name."""
    articles = []
    for path in sorted(_recorded("pubmed_efetch").glob("*.xml")):
        articles += _ARTICLE.findall(path.read_text(encoding="utf-8"))
    return articles


def pmid_of(article: str) -> str:
    match = _PMID.search(article)
    assert match is not None
    return match.group(2)


def write_medline(path: Path, articles: list[str], deleted: tuple[str, ...] | list[str] = (),
                  md5: str | None = None) -> Path:
    """A baseline or update file (gzip when the name ends in .gz) with ``NAME.md5`` beside it (``md5`` instead of the
    true digest, to make a wrong one)."""
    text = _HEAD + "\n".join(articles)
    if deleted:
        text += "\n<DeleteCitation>\n" + "".join(f'<PMID Version="1">{p}</PMID>\n' for p in deleted) + \
            "</DeleteCitation>"
    data = (text + "\n</PubmedArticleSet>\n").encode()
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)
    digest = md5 or hashlib.md5(data, usedforsecurity=False).hexdigest()
    Path(f"{path}.md5").write_text(f"MD5({path.name})= {digest}\n")
    return path


def revised(article: str, version: int | None = None, title_prefix: str = "REVISED ") -> str:
    """The article with its title changed, and its PMID's Version when given."""
    out = article.replace("<ArticleTitle>", f"<ArticleTitle>{title_prefix}", 1)
    if version is not None:
        out = _PMID.sub(lambda m: f'<PMID Version="{version}">{m.group(2)}</PMID>', out, count=1)
    return out


@dataclass(frozen=True)
class MedlineSet:
    """A baseline and its update, and what the update does."""

    baseline: Path
    update: Path
    pmids: list[str]
    revised_pmid: str
    deleted_pmid: str


def medline_set(directory: Path) -> MedlineSet:
    articles = pubmed_articles()
    pmids = [pmid_of(a) for a in articles]
    baseline = write_medline(directory / "pubmed26n0001.xml.gz", articles)
    update = write_medline(directory / "pubmed26n0002.xml.gz", [revised(articles[0])], deleted=[pmids[1]])
    return MedlineSet(baseline, update, pmids, pmids[0], pmids[1])


def truncated(source: Path, target: Path) -> Path:
    """``source`` cut in the middle (no ``.md5``: only the reading can find it out)."""
    data = source.read_bytes()
    target.write_bytes(data[:len(data) // 2])
    return target


def fulltexts() -> list[Path]:
    return sorted(_recorded("europepmc_fulltext").glob("*.xml"))


def jats_package(path: Path) -> Path:
    """The corpus's full texts as PMC's OA tar.gz (one .nxml per article, in a directory each)."""
    with tarfile.open(path, "w:gz") as archive:
        for source in fulltexts():
            data = source.read_bytes()
            info = tarfile.TarInfo(f"{source.stem}/{source.stem}.nxml")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def jats_bulk(path: Path) -> Path:
    """The corpus's full texts as one gzip file of many ``<article>`` elements."""
    bodies = [re.sub(r"^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?", "", p.read_text(encoding="utf-8"))
              for p in fulltexts()]
    path.write_bytes(gzip.compress(("<articles>\n" + "\n".join(bodies) + "\n</articles>\n").encode(), mtime=0))
    return path


_OWN_IDS = re.compile(r"<PubmedData>.*?</PubmedData>", re.S)
_ELOCATION_DOI = re.compile(r'<ELocationID EIdType="doi"[^>]*>[^<]*</ELocationID>')


def renumbered(article: str, pmid: int) -> str:
    """A corpus article as another record: PMID ``pmid``, DOI ``10.5555/bulk.PMID``, no PMCID (IDs the corpus's
    papers do not have, so that records never merge with each other)."""
    out = _PMID.sub(lambda m: f'<PMID Version="{m.group(1)}">{pmid}</PMID>', article, count=1)
    out = _ELOCATION_DOI.sub(f'<ELocationID EIdType="doi" ValidYN="Y">10.5555/bulk.{pmid}</ELocationID>', out)

    def own_ids(match: re.Match[str]) -> str:
        block = match.group(0)
        head, sep, tail = block.partition("<ArticleIdList>")
        if not sep:
            return block
        ids, _, rest = tail.partition("</ArticleIdList>")
        mine = (f'<ArticleId IdType="pubmed">{pmid}</ArticleId><ArticleId IdType="doi">10.5555/bulk.{pmid}'
                "</ArticleId>")
        return f"{head}<ArticleIdList>{mine}</ArticleIdList>{rest}"

    return _OWN_IDS.sub(own_ids, out, count=1)


def synthetic_records(n: int, first_pmid: int = 90_000_001) -> Iterator[str]:
    """``n`` records of the corpus's shapes, cycled, each with IDs of its own: each article renumbered once with a
    mark where its PMID goes, then filled in (the same text as :func:`renumbered`, fast enough for a million)."""
    mark = "\x00"
    templates = [renumbered(article, mark).split(mark) for article in pubmed_articles()]  # type: ignore[arg-type]
    for i in range(n):
        yield str(first_pmid + i).join(templates[i % len(templates)])


def write_synthetic(path: Path, n: int, first_pmid: int = 90_000_001) -> Path:
    """A gzip baseline file of ``n`` synthetic records, written as it is generated (any size in constant memory)."""
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
        out.write(_HEAD)
        for record in synthetic_records(n, first_pmid):
            out.write(record)
            out.write("\n")
        out.write("</PubmedArticleSet>\n")
    return path


def without_times(value: Any) -> Any:
    """An entry's JSON without the moments its parts were set (two merges of the same record differ only there)."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k not in ("timestamp", "timestampHuman")}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


_ARTICLE_ID = re.compile(r'(<article-id pub-id-type=")(pmcid|pmid|doi|pmcaid|pmcaiid)(">)[^<]*(</article-id>)')


def synthetic_fulltexts(n: int, first: int = 90_000_001) -> Iterator[tuple[str, str]]:
    """``n`` (PMCID, article) of the corpus's full texts, cycled, each with IDs of its own (PMCID, PMID and DOI that
    no corpus paper has, so that articles never merge with each other)."""
    bodies = [re.sub(r"^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?", "", p.read_text(encoding="utf-8"))
              for p in fulltexts()]
    values = {"pmcid": "PMC{0}", "pmcaid": "{0}", "pmcaiid": "{0}", "pmid": "{0}", "doi": "10.5555/jats.{0}"}
    for i in range(n):
        number = first + i

        def own(match: re.Match[str], number: int = number) -> str:
            value = values[match.group(2)].format(number)
            return f"{match.group(1)}{match.group(2)}{match.group(3)}{value}{match.group(4)}"

        yield f"PMC{number}", _ARTICLE_ID.sub(own, bodies[i % len(bodies)])


def write_synthetic_package(path: Path, n: int) -> Path:
    """A PMC OA-style tar.gz of ``n`` synthetic full texts (one ``.nxml`` in a directory each), written as made."""
    with tarfile.open(path, "w:gz", compresslevel=1) as archive:
        for pmcid, article in synthetic_fulltexts(n):
            data = article.encode()
            info = tarfile.TarInfo(f"{pmcid}/{pmcid}.nxml")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def write_synthetic_jats_bulk(path: Path, n: int) -> Path:
    """A Europe PMC-style gzip file of ``n`` synthetic ``<article>`` elements, written as made."""
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
        out.write("<articles>\n")
        for _, article in synthetic_fulltexts(n):
            out.write(article)
            out.write("\n")
        out.write("</articles>\n")
    return path


def serve_files(directory: Path, server: LoopbackServer, ranges: list[tuple[str, str]]) -> None:
    """``/updatefiles/`` lists the directory's files; each is served whole or by ``Range`` (206)."""
    names = sorted(p.name for p in directory.iterdir() if p.is_file())
    links = "".join(f'<a href="{n}">{n}</a>\n' for n in names)
    server.route("/updatefiles/", Reply(body=f"<html><body>{links}<a href='../'>up</a></body></html>"))

    def file(req: Request) -> Reply:
        name = req.path.rsplit("/", 1)[-1]
        path = directory / name
        if not path.is_file():
            return Reply(status=404, body="not found")
        data = path.read_bytes()
        asked = req.headers.get("Range", "")
        ranges.append((name, asked))
        match = re.fullmatch(r"bytes=(\d+)-(\d+)", asked)
        if match is None:
            return Reply(body=data, content_type="application/octet-stream")
        start, end = int(match.group(1)), min(int(match.group(2)), len(data) - 1)
        if start >= len(data):
            return Reply(status=416, body=b"", headers={"Content-Range": f"bytes */{len(data)}"})
        return Reply(status=206, body=data[start:end + 1], content_type="application/octet-stream",
                     headers={"Content-Range": f"bytes {start}-{end}/{len(data)}"})

    server.route("/updatefiles/*", file)
