"""Corresponding authors of a JATS article by PubFetcher's rules: who corresponds (marked, pointing to a corresp note,
to an author-notes footnote, or named in a note), and their contacts, note e-mails matched to names."""

from __future__ import annotations

from pubfetch.extract.jats_corresp import corresp_authors, match_email
from pubfetch.extract.xmlsafe import parse_xml
from pubfetch.model.parts import CorrespAuthor


def article(contribs: str, notes: str = "") -> list[CorrespAuthor]:
    return corresp_authors(parse_xml(
        '<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta><contrib-group>'
        f"{contribs}</contrib-group><author-notes>{notes}</author-notes></article-meta></front></article>"))


def contrib(given: str, surname: str, extra: str = "", attrs: str = "") -> str:
    return (f'<contrib contrib-type="author"{attrs}><name><surname>{surname}</surname><given-names>{given}'
            f"</given-names></name>{extra}</contrib>")


def test_a_marked_contributor_with_its_own_contacts() -> None:
    found = article(contrib("Ana", "Silva", '<contrib-id contrib-id-type="orcid">https://orcid.org/0000-0001</contrib-id>'
                                            "<email>ana@x.org</email><phone>+351 1</phone>"
                                            '<uri xlink:href="https://ana.example">https://ana.example</uri>',
                            ' corresp="yes"') + contrib("Rui", "Costa"))
    assert found == [CorrespAuthor("Ana Silva", "https://orcid.org/0000-0001", "ana@x.org", "+351 1",
                                   "https://ana.example")]


def test_two_note_emails_go_to_the_two_corresponding_authors_by_name() -> None:
    found = article(contrib("Jane", "Doe", '<xref ref-type="corresp" rid="c1"/>')
                    + contrib("Anthony D.", "Whetton", '<xref ref-type="corresp" rid="c1"/>'),
                    '<corresp id="c1">E-mail: <email>tony.whetton@x.org</email>; <email>janedoe@x.org</email>'
                    "</corresp>")
    assert [(ca.name, ca.email) for ca in found] == [("Jane Doe", "janedoe@x.org"),
                                                     ("Anthony D. Whetton", "tony.whetton@x.org")]


def test_an_author_pointing_to_an_author_notes_footnote_gets_its_labelled_contacts() -> None:
    found = article(contrib("Mei", "Wang", '<xref ref-type="author-notes" rid="fn1"/>') + contrib("Li", "Zhang"),
                    '<fn id="fn1"><p>Tel.: +86 10 1234 5678. E-mail: mei.wang@x.cn</p></fn>')
    assert found == [CorrespAuthor("Mei Wang", "", "mei.wang@x.cn", "+86 10 1234 5678")]


def test_without_marks_the_author_named_in_the_corresp_note_corresponds() -> None:
    found = article(contrib("Liis", "Kask") + contrib("Peeter", "Tamm"),
                    "<corresp>Correspondence to Liis Kask, e-mail: liis.kask@example.ee</corresp>")
    assert found == [CorrespAuthor("Liis Kask", "", "liis.kask@example.ee")]


def test_an_article_without_corresponding_authors_has_none() -> None:
    assert article(contrib("Rui", "Costa")) == []


def test_an_email_matches_a_name_more_loosely_with_each_attempt() -> None:
    assert match_email("Jane Doe", "janedoe@x.org", 0)
    assert not match_email("Jane Doe", "j.doe@x.org", 0)
    assert match_email("Jane Doe", "j.doe@x.org", 1)
    assert match_email("Anthony D. Whetton", "tony.whetton@x.org", 1)
    assert match_email("Anthony D. Whetton", "adw@x.org", 2)
    assert not match_email("Anthony D. Whetton", "adw@x.org", 1)
    assert match_email("Caroline Dives", "cdive@x.org", 3)  # "dives" shortened by one letter
    assert not match_email("Caroline Dives", "cdive@x.org", 1)


def test_an_email_without_a_local_part_matches_no_one() -> None:
    assert not any(match_email("Jane Doe", "@x.org", attempt) for attempt in range(5))
