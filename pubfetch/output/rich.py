"""Text forms, and the labels every form shares, of the rich parts (funding, updates, references, sections, licence,
relations, tables, figures, supplements, statements) and of the retraction flag.

They are written only when known, after PubFetcher's own fields, so that PubFetcher's layout is unchanged for a
publication without them; a retracted publication says so in its first line, where a reader skimming the output
looks.
"""

from __future__ import annotations

from pubfetch.model.part_type import PartName
from pubfetch.model.publication import Publication
from pubfetch.model.rich import RichList, RichName, RichText, Section
from pubfetch.output.common import PART_LABELS, instant_text, type_label

RICH_LABELS: dict[RichName, str] = {
    RichName.funding: "Funding",
    RichName.links: "Links",
    RichName.mined_terms: "Mined terms",
    RichName.updates: "Updates",
    RichName.references: "References",
    RichName.sections: "Sections",
    RichName.license: "License",
    RichName.relations: "Relations",
    RichName.tables: "Tables",
    RichName.figures: "Figures",
    RichName.supplements: "Supplements",
    RichName.statements: "Statements",
}



def part_label(name: PartName | RichName) -> str:
    """The label of one of PubFetcher's parts or of a rich part."""
    return PART_LABELS[name] if isinstance(name, PartName) else RICH_LABELS[name]


RETRACTED_TEXT = "RETRACTED PUBLICATION: this paper was retracted"


def retraction_notice(pub: Publication) -> str:
    """The notice naming the retraction notices a retracted paper has ("" when it is not retracted)."""
    if not pub.retracted:
        return ""
    notices = pub.retraction_notices()
    return RETRACTED_TEXT + (f" (retraction notice {', '.join(notices)})" if notices else "")


def section_line(section: Section) -> str:
    """A section heading indented by its depth."""
    return "  " * (section.level - 1) + (section.title or "(untitled)")


def rich_part_text(part: RichList | RichText) -> str:
    """One rich part with its provenance, laid out like PubFetcher's parts; sections one per line, indented."""
    if isinstance(part, RichList) and part.name is RichName.sections:
        content = "".join("\n    " + section_line(s) for s in part.items)
    else:
        content = part.plain()
    return (
        f"{RICH_LABELS[part.name].upper()}: {content}\n"
        f"    type: {type_label(part.type)}\n"
        f"    url: {part.url}\n"
        f"    timestamp: {instant_text(part.timestamp)}\n"
        f"    size: {part.size}"
    )


def rich_parts_text(pub: Publication) -> str:
    """The known rich parts, each followed by a blank line ("" when none is known)."""
    return "".join(rich_part_text(pub.rich(n)) + "\n\n" for n in RichName if not pub.rich(n).is_empty())
