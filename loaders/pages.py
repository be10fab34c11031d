"""Page typing: which label a page gets, from frontmatter first, then its folder and name."""

from __future__ import annotations

import re
from dataclasses import dataclass

from loaders.frontmatter import Frontmatter
from loaders.records import PageKind

SOURCE_NAME = re.compile(r"^@(\d{4})__([^_]+(?:_[^_]+)*)__(.+)$")
PAPER_TYPES = frozenset({"paper", "article", "preprint", "journal", "conference", "thesis"})
PERSON_TYPES = frozenset({"person", "people", "author", "researcher"})
ORG_TYPES = frozenset(
    {"organization", "organisation", "institution", "company", "lab", "university", "org"}
)
PRODUCT_TYPES = frozenset(
    {"product", "system", "tool", "library", "framework", "software", "project", "model"}
)
META_TYPES = frozenset({"meta", "overview", "index", "log", "hot", "dashboard"})


@dataclass(frozen=True)
class SourceName:
    """What `@YEAR__VENUE__Title` says."""

    year: int
    venue: str
    title: str


def parse_source_name(stem: str) -> SourceName | None:
    """`@2024__OSDI__DistServe - Title` -> (2024, OSDI, "DistServe - Title")."""
    match = SOURCE_NAME.match(stem)
    if not match:
        return None
    return SourceName(int(match.group(1)), match.group(2), match.group(3))


def classify(front: Frontmatter, rel_path: str, stem: str) -> PageKind:
    """The page's kind. Frontmatter wins; the folder and the `@YEAR__VENUE__` name decide
    otherwise."""
    page_type = (front.text("type") or "").lower()
    folders = [part.lower() for part in rel_path.split("/")[:-1]]
    if page_type == "source" or (not page_type and "sources" in folders):
        source_type = (front.text("source_type") or "").lower()
        if source_type in PAPER_TYPES or (not source_type and parse_source_name(stem)):
            return PageKind.PAPER
        return PageKind.SOURCE
    if page_type in PAPER_TYPES:
        return PageKind.PAPER
    if page_type == "entity" or (not page_type and "entities" in folders):
        entity_type = (front.text("entity_type") or "").lower()
        if entity_type in PERSON_TYPES:
            return PageKind.PERSON
        if entity_type in ORG_TYPES:
            return PageKind.ORGANIZATION
        if entity_type in PRODUCT_TYPES:
            return PageKind.PRODUCT
        return PageKind.NOTE
    if page_type in PERSON_TYPES:
        return PageKind.PERSON
    if page_type in ORG_TYPES:
        return PageKind.ORGANIZATION
    if page_type in PRODUCT_TYPES:
        return PageKind.PRODUCT
    if page_type == "concept" or (not page_type and "concepts" in folders):
        return PageKind.CONCEPT
    if page_type == "fold" or (not page_type and "folds" in folders):
        return PageKind.FOLD
    if page_type in META_TYPES or stem.lower() in {"log", "index", "hot", "overview"}:
        return PageKind.META
    return PageKind.NOTE


def labels_for(kind: PageKind) -> list[str]:
    """Neo4j labels for a kind, `Page` first; papers are also sources."""
    if kind is PageKind.PAPER:
        return ["Page", "Source", "Paper"]
    if kind in (PageKind.NOTE,):
        return ["Page"]
    return ["Page", kind.value]


WORK_KINDS = frozenset({PageKind.PAPER, PageKind.SOURCE})
