"""A fetched webpage or doc: when it is broken, usable and final, its status words, whether a fresh fetch replaces the
stored page (never a good page for a worse fetch), and its JSON forms."""

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.webpage import Webpage

ARGS = FetcherArgs()


def test_webpage_broken_usable_final():
    w = Webpage(start_url="http://a", final_url="http://a", status_code=200, title="T" * 10, content="C" * 40)
    assert not w.is_broken() and w.is_usable(ARGS) and w.is_final(ARGS)
    assert Webpage(status_code=404, final_url="x").is_broken()
    assert not Webpage(status_code=0, final_url="file:///x").is_broken()
    assert Webpage(status_code=0, final_url="").is_broken()
    w2 = Webpage(status_code=200, final_url="x", title="T" * 60)
    assert w2.is_usable(ARGS) and not w2.is_final(ARGS)
    assert Webpage(status_code=200, final_url="x", title="short").status(ARGS) == "non-usable"


def test_webpage_overwrite_rule():
    final = Webpage(status_code=200, final_url="x", title="T" * 10, content="C" * 50)
    nonfinal = Webpage(status_code=200, final_url="x", title="T" * 10)
    empty = Webpage(status_code=500, final_url="x")
    assert final.should_replace(nonfinal, ARGS)
    assert final.should_replace(final, ARGS)
    assert nonfinal.should_replace(nonfinal, ARGS)
    assert not nonfinal.should_replace(final, ARGS)
    assert not empty.should_replace(final, ARGS)
    assert not empty.should_replace(nonfinal, ARGS)
    assert empty.should_replace(Webpage(status_code=404, final_url="y"), ARGS)
    assert empty.should_replace(None, ARGS)


def test_webpage_json_round_trip():
    w = Webpage("http://a", "https://a/", "text/html", 200, 5, "MIT", "en", "Title", "Content")
    d = w.to_json(ARGS)
    assert d["titleLength"] == 5 and d["broken"] is False and list(d)[-1] == "content"
    assert Webpage.from_json(d).to_json(ARGS) == d


def test_status_words() -> None:
    assert Webpage(status_code=404, final_url="x").status(ARGS) == "broken"
    assert Webpage(status_code=200, final_url="x").status(ARGS) == "empty"
    assert Webpage(status_code=200, final_url="x", title="T" * 60).status(ARGS) == "non-final"
    assert Webpage(status_code=200, final_url="x", title="T" * 10, content="C" * 40).status(ARGS) == "final"


def test_an_error_status_with_usable_content_is_told_by_its_content() -> None:
    soft404 = Webpage(status_code=404, final_url="x", title="T" * 10, content="C" * 40)
    assert soft404.is_broken() and not soft404.is_final(ARGS)
    assert soft404.status(ARGS) == "non-final"


def test_the_stored_form_leaves_the_computed_fields_out_and_the_plain_form_has_three() -> None:
    w = Webpage("http://a", "https://a/", "text/html", 200, 5, "MIT", "en", "Title", "Content")
    stored = w.to_json(computed=False)
    assert not {"empty", "usable", "final", "broken"} & set(stored)
    assert Webpage.from_json(stored) == w
    assert w.plain_json() == {"startUrl": "http://a", "title": "Title", "content": "Content"}


def test_missing_json_fields_read_as_empty() -> None:
    assert Webpage.from_json({"startUrl": "http://a", "title": None}) == Webpage(start_url="http://a")
