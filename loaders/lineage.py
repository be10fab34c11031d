"""Lineage assertions: which work builds on which, from frontmatter lists, Dataview inline
fields, arrow chains of links, prose in lineage sections, and comparison phrases."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from loaders.links import RawLink
from loaders.pages import WORK_KINDS
from loaders.records import LineageAssertion, LineageRelation, Link, Mechanism, PageKind
from loaders.text import fold_name

FIELD_RELATIONS: dict[str, LineageRelation] = {
    "builds_on": LineageRelation.BUILDS_ON,
    "extends": LineageRelation.EXTENDS,
    "supersedes": LineageRelation.SUPERSEDES,
    "improves_on": LineageRelation.IMPROVES_ON,
    "based_on": LineageRelation.BASED_ON,
}
LINEAGE_SECTIONS = frozenset(
    {"系譜", "lineage", "prior work", "builds on", "predecessors", "ancestry", "先行研究"}
)
_FIELDS = "|".join(FIELD_RELATIONS)
INLINE_LINE = re.compile(rf"^\s*(?:[-*+]\s+)?({_FIELDS})::\s*(.+)$", re.IGNORECASE)
INLINE_BRACKET = re.compile(rf"[\[(]({_FIELDS})::\s*((?:!?\[\[[^\]]+\]\][\s,]*)+)[\])]",
                            re.IGNORECASE)
ARROW_BETWEEN = re.compile(r"^\s*(→|->|⟶|=>|⇒)\s*$")
COMPARISON_BEFORE = re.compile(
    r"(?:compared\s+(?:with|to)|relative\s+to|versus|vs\.?|unlike|over|than)\s*$", re.IGNORECASE
)
COMPARISON_AFTER = re.compile(r"^\s*(?:比|と比べ|と比較|に比べ|より)")
# Explicit contrast: the weaker COMPARES_WITH even inside a lineage section. "over [[X]]" and
# "[[X]] 比" there name a baseline the work improves on, which the vault counts as lineage.
CONTRAST_BEFORE = re.compile(
    r"(?:compared\s+(?:with|to)|relative\s+to|versus|vs\.?|unlike|in\s+contrast\s+to)\s*$",
    re.IGNORECASE)
CONTRAST_AFTER = re.compile(r"^\s*(?:と比べ|と比較|とは異な|と対照)")
LINKED_KINDS = WORK_KINDS | {PageKind.PRODUCT, PageKind.CONCEPT}


def is_lineage_section(heading: str | None) -> bool:
    """True for `## 系譜`, `## Lineage` and the like."""
    return heading is not None and fold_name(heading).strip(" :") in LINEAGE_SECTIONS


def from_frontmatter(
    page: str, items: Iterable[tuple[str, LineageRelation, Link]]
) -> list[LineageAssertion]:
    """Frontmatter lists: one assertion per resolved item."""
    return [
        LineageAssertion(child=page, parent=link.target, relation=relation, page=page,
                         line=link.line, mechanism=Mechanism.FRONTMATTER, text=link.raw)
        for _, relation, link in items
        if link.target
    ]


def from_body_line(
    page: str,
    page_kind: PageKind,
    line_no: int,
    text: str,
    raws: Sequence[RawLink],
    links: Sequence[Link],
    section: str | None,
    kind_of: dict[str, PageKind],
) -> list[LineageAssertion]:
    """Every lineage assertion one body line makes. `raws[i]` and `links[i]` are the same
    link."""
    out: list[LineageAssertion] = []
    used: set[int] = set()

    def add(i: int, relation: LineageRelation, mechanism: Mechanism, child: str = page,
            parent: str | None = None) -> None:
        target = parent if parent is not None else links[i].target
        if target:
            out.append(LineageAssertion(child=child, parent=target, relation=relation, page=page,
                                        line=line_no, mechanism=mechanism,
                                        text=text.strip()[:500]))
        used.add(i)

    inline = INLINE_LINE.match(text)
    if inline:
        relation = FIELD_RELATIONS[inline.group(1).lower()]
        offset = inline.start(2)
        for i, raw in enumerate(raws):
            if raw.start >= offset and not raw.markdown:
                add(i, relation, Mechanism.INLINE_LINE)
        return out
    for match in INLINE_BRACKET.finditer(text):
        relation = FIELD_RELATIONS[match.group(1).lower()]
        for i, raw in enumerate(raws):
            if match.start(2) <= raw.start < match.end(2):
                add(i, relation, Mechanism.INLINE_BRACKET)
    # Arrow chains: consecutive links joined only by an arrow; the right builds on the left.
    for i in range(len(raws) - 1):
        between = text[raws[i].end:raws[i + 1].start]
        if ARROW_BETWEEN.match(between) and links[i].target and links[i + 1].target:
            child, parent = links[i + 1].target, links[i].target
            out.append(LineageAssertion(child=child or "", parent=parent or "",
                                        relation=LineageRelation.BUILDS_ON, page=page,
                                        line=line_no, mechanism=Mechanism.ARROW,
                                        text=text.strip()[:500]))
            used.update({i, i + 1})
    in_lineage = is_lineage_section(section)
    for i, (raw, link) in enumerate(zip(raws, links, strict=True)):
        if i in used or not link.target or raw.embed or (link.target == page and not in_lineage):
            continue
        target_kind = kind_of.get(link.target)
        before = text[max(0, raw.start - 24):raw.start]
        after = text[raw.end:raw.end + 8]
        contrast = CONTRAST_BEFORE.search(before) or CONTRAST_AFTER.match(after)
        if in_lineage and page_kind in WORK_KINDS and target_kind in WORK_KINDS and not contrast:
            add(i, LineageRelation.BUILDS_ON, Mechanism.PROSE)
            continue
        if page_kind not in WORK_KINDS | {PageKind.PRODUCT} or target_kind not in LINKED_KINDS:
            continue
        if COMPARISON_BEFORE.search(before) or COMPARISON_AFTER.match(after):
            add(i, LineageRelation.COMPARES_WITH, Mechanism.COMPARISON)
    return out
