"""One page in, its facts out: links (with field, section and line), typed relations, authors,
lineage, explicit contradictions, numeric claims and unlinked mentions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from loaders import lineage
from loaders.callouts import find_callouts
from loaders.fact_ids import callout_id
from loaders.frontmatter import Frontmatter
from loaders.links import RawLink, body_lines, find_links, mask_code
from loaders.mentions import MentionFinder
from loaders.numeric import numeric_claims
from loaders.pages import WORK_KINDS
from loaders.records import (
    Authorship,
    ClaimRecord,
    ContradictionRecord,
    LineageAssertion,
    Link,
    Mention,
    Page,
    PageKind,
    PageRelation,
)
from loaders.resolver import NameIndex

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
CONTRADICTION_CALLOUTS = frozenset({"contradiction", "contradictions", "conflict", "disputed"})
WARNING_CALLOUTS = frozenset({"warning", "caution", "attention", "danger", "important"})
CONTRADICTION_WORDS = re.compile(
    r"contradict|conflict|disagree|inconsisten|矛盾|食い違|相反|不一致", re.IGNORECASE)
RESOLVED_WORDS = re.compile(r"訂正|修正済|解決|corrected|correction|resolved|fixed", re.IGNORECASE)
# Frontmatter fields whose links are typed relations: field -> (type, source kinds, target kinds)
RELATION_FIELDS: dict[str, tuple[str, frozenset[PageKind], frozenset[PageKind]]] = {
    "affiliation": ("AFFILIATED_WITH", frozenset({PageKind.PERSON}),
                    frozenset({PageKind.ORGANIZATION})),
    "affiliations": ("AFFILIATED_WITH", frozenset({PageKind.PERSON}),
                     frozenset({PageKind.ORGANIZATION})),
    "part_of": ("PART_OF", frozenset({PageKind.ORGANIZATION}), frozenset({PageKind.ORGANIZATION})),
    "developer": ("DEVELOPED_BY", frozenset({PageKind.PRODUCT}),
                  frozenset({PageKind.ORGANIZATION, PageKind.PERSON})),
    "related": ("ABOUT", WORK_KINDS, frozenset({PageKind.CONCEPT})),
    "concepts": ("ABOUT", WORK_KINDS, frozenset({PageKind.CONCEPT})),
    "topics": ("ABOUT", WORK_KINDS, frozenset({PageKind.CONCEPT})),
}
SUBJECT_KINDS = WORK_KINDS | {PageKind.PRODUCT, PageKind.CONCEPT, PageKind.ORGANIZATION}


@dataclass
class BodyLine:
    """A body line with its links, raw and resolved, and the section it sits in."""

    number: int
    text: str
    section: str | None
    raws: list[RawLink]
    links: list[Link]
    original: str = ""


def _link(page: Page, raw: RawLink, index: NameIndex, line: int, section: str | None,
          field: str | None) -> Link:
    resolution = index.resolve(raw.target, page.path)
    return Link(source=page.key, raw=raw.raw, target=resolution.target,
                target_name=resolution.name, display=raw.display, heading=raw.heading,
                block=raw.block, embed=raw.embed, attachment=resolution.attachment,
                markdown=raw.markdown, field=field, line=line, section=section)


def frontmatter_links(page: Page, front: Frontmatter, index: NameIndex) -> list[Link]:
    """Links written in frontmatter values, each with its field and line."""
    out: list[Link] = []
    current: str | None = None
    for offset, text in enumerate(front.lines[1:max(front.body_start - 2, 1)]):
        line_no = offset + 2
        if text[:1].strip() and ":" in text:
            current = text.split(":", 1)[0].strip()
        for raw in find_links(text):
            out.append(_link(page, raw, index, line_no, None, current))
    return out


def read_body(page: Page, front: Frontmatter, index: NameIndex,
              skip: Sequence[tuple[int, int]] = ()) -> list[BodyLine]:
    """Body lines outside code, with their section and resolved links; lines in the `skip`
    ranges (first, last; sorted, apart) are left out (their headings still open sections)."""
    out: list[BodyLine] = []
    section: str | None = None
    ranges = iter(skip)
    first, last = next(ranges, (0, -1))
    for number, original in body_lines(front.lines, front.body_start, mask=False):
        while number > last and last >= first:
            first, last = next(ranges, (0, -1))
        if first <= number <= last:
            if original.startswith("#") and (heading := HEADING.match(mask_code(original))):
                section = heading.group(2).strip()
            continue
        text = mask_code(original)
        heading = HEADING.match(text)
        if heading:
            section = heading.group(2).strip()
        raws = find_links(text)
        links = [_link(page, raw, index, number, section, None) for raw in raws]
        out.append(BodyLine(number, text, section, raws, links, original))
    return out


def authorships(page: Page, links: list[Link], index: NameIndex) -> list[Authorship]:
    """`authors:` in order; position counts the listed authors that have pages."""
    out: list[Authorship] = []
    for link in (lk for lk in links if lk.field == "authors" and lk.target):
        if index.kind(link.target) is PageKind.PERSON:
            out.append(Authorship(paper=page.key, person=link.target or "",
                                  position=len(out) + 1, line=link.line))
    return out


def relations(page: Page, links: list[Link], index: NameIndex) -> list[PageRelation]:
    """Typed frontmatter relations, only between pages of fitting kinds."""
    out: list[PageRelation] = []
    seen: set[tuple[str, str]] = set()
    for link in links:
        spec = RELATION_FIELDS.get(link.field or "")
        if spec is None or not link.target:
            continue
        rel_type, source_kinds, target_kinds = spec
        if page.kind not in source_kinds or index.kind(link.target) not in target_kinds:
            continue
        if (rel_type, link.target) in seen:
            continue
        seen.add((rel_type, link.target))
        out.append(PageRelation(type=rel_type, source=page.key, target=link.target,
                                field=link.field or "", line=link.line))
    return out


def frontmatter_lineage(page: Page, links: list[Link]) -> list[LineageAssertion]:
    items = [(lk.field or "", lineage.FIELD_RELATIONS[lk.field or ""], lk)
             for lk in links if (lk.field or "") in lineage.FIELD_RELATIONS]
    return lineage.from_frontmatter(page.key, items)


def body_lineage(page: Page, body: list[BodyLine], index: NameIndex) -> list[LineageAssertion]:
    out: list[LineageAssertion] = []
    for line in body:
        if line.raws:
            out.extend(lineage.from_body_line(page.key, page.kind, line.number, line.text,
                                              line.raws, line.links, line.section,
                                              index.kinds))
    return out


def callout_contradictions(page: Page, body: list[BodyLine]) -> list[ContradictionRecord]:
    """`> [!contradiction]` callouts, and warning callouts that say they are one."""
    by_line = {line.number: line for line in body}
    out: list[ContradictionRecord] = []
    for callout in find_callouts([(line.number, line.text) for line in body]):
        is_contradiction = callout.kind in CONTRADICTION_CALLOUTS or (
            callout.kind in WARNING_CALLOUTS and CONTRADICTION_WORDS.search(callout.text))
        if not is_contradiction:
            continue
        lines = [callout.line, *(n for n, _ in callout.body)]
        targets = sorted({lk.target for n in lines for lk in by_line[n].links
                          if lk.target and lk.target != page.key})
        blocks = sorted({lk.block for n in lines for lk in by_line[n].links if lk.block})
        status = "resolved" if RESOLVED_WORDS.search(callout.title) else "open"
        out.append(ContradictionRecord(
            id=callout_id(page.key, callout.line), kind="explicit", status=status,
            origin="callout", summary=callout.title or callout.text.split("\n")[0][:200],
            page=page.key, line=callout.line, subject=page.key,
            pages=tuple([page.key, *targets]),
            evidence=tuple(f"{page.key}:{n}: {by_line[n].original.strip()}" for n in lines),
            introduced_by="^" + blocks[0] if blocks else None))
    return out


def frontmatter_contradictions(page: Page, links: list[Link]) -> list[ContradictionRecord]:
    """`contradicts:` / `disputes:` in frontmatter: this page disagrees with those."""
    return [
        ContradictionRecord(
            id=f"frontmatter:{page.key}:{lk.line}", kind="explicit", status="open",
            origin="frontmatter", summary=f"{page.key} contradicts {lk.target}",
            page=page.key, line=lk.line, subject=page.key, pages=(page.key, lk.target or ""),
            evidence=(f"{page.key}:{lk.line}: {lk.field}: {lk.raw}",))
        for lk in links
        if lk.field in ("contradicts", "disputes", "contradicted_by") and lk.target
    ]


def mentions_and_numbers(page: Page, body: list[BodyLine], finder: MentionFinder | None,
                         index: NameIndex) -> tuple[list[Mention], list[ClaimRecord]]:
    """Unlinked mentions per line, and numeric claims bound to the nearest subject page."""
    mentions: list[Mention] = []
    claims: list[ClaimRecord] = []
    fallback = page.key if page.kind in SUBJECT_KINDS else None
    known = page.updated or page.created
    for line in body:
        stripped = line.text.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith("|---"):
            continue
        spans = [(raw.start, raw.end) for raw in line.raws]
        found = finder.find(page.key, line.number, line.text, spans) if finder else []
        mentions.extend(found)
        if any(map(str.isdigit, stripped)):
            pairs = zip(line.raws, line.links, strict=True)
            subjects = [(raw.start, lk.target) for raw, lk in pairs
                        if lk.target and index.kind(lk.target) in SUBJECT_KINDS]
            subjects += [(line.text.find(m.text), m.target) for m in found
                         if index.kind(m.target) in SUBJECT_KINDS]
            subjects.sort()
            claims.extend(numeric_claims(page.key, line.number, line.text, subjects, fallback,
                                         known))
    return mentions, claims
