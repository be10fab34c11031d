"""Typed records the loaders produce. Plain immutable data: they know nothing about Neo4j."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from enum import StrEnum
from functools import cached_property

from pydantic import BaseModel, ConfigDict, Field


class Record(BaseModel):
    """Base for every record: frozen, so a record read is a record kept."""

    model_config = ConfigDict(frozen=True)


class PageKind(StrEnum):
    """The typed label a page gets besides `Page`."""

    PAPER = "Paper"
    SOURCE = "Source"
    PERSON = "Person"
    ORGANIZATION = "Organization"
    PRODUCT = "Product"
    CONCEPT = "Concept"
    FOLD = "Fold"
    META = "Meta"
    NOTE = "Note"


class LineageRelation(StrEnum):
    """Typed lineage edges between works; COMPARES_WITH is the weaker, prose-only kind."""

    BUILDS_ON = "BUILDS_ON"
    EXTENDS = "EXTENDS"
    SUPERSEDES = "SUPERSEDES"
    IMPROVES_ON = "IMPROVES_ON"
    BASED_ON = "BASED_ON"
    COMPARES_WITH = "COMPARES_WITH"


class Mechanism(StrEnum):
    """How a page asserted a lineage edge."""

    FRONTMATTER = "frontmatter"
    INLINE_LINE = "inline-line"
    INLINE_BRACKET = "inline-bracket"
    ARROW = "arrow"
    PROSE = "prose"
    COMPARISON = "comparison"


class TouchRole(StrEnum):
    """Why a log entry names a page."""

    SOURCE = "source"
    SUMMARY = "summary"
    CREATED = "created"
    UPDATED = "updated"
    DEFERRED = "deferred"
    CONSULTED = "consulted"
    MENTIONED = "mentioned"


class Link(Record):
    """One link occurrence, where it stands, and what it resolved to (None: dangling)."""

    source: str
    raw: str
    target: str | None
    target_name: str
    display: str | None = None
    heading: str | None = None
    block: str | None = None
    embed: bool = False
    attachment: bool = False
    markdown: bool = False
    field: str | None = None
    line: int
    section: str | None = None


class Page(Record):
    """One markdown page with its typed attributes. `key` is the file stem (Obsidian's name)."""

    key: str
    path: str
    kind: PageKind
    title: str
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    source_type: str | None = None
    entity_type: str | None = None
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    status: str | None = None
    created: dt.date | None = None
    updated: dt.date | None = None
    date_published: dt.date | None = None
    body: str = ""
    content_hash: str
    names_folded: tuple[str, ...] = ()
    mtime_ns: int = 0
    size: int = 0


class Authorship(Record):
    """`authors:` of a paper, in paper order (position starts at 1)."""

    paper: str
    person: str
    position: int
    line: int


class PageRelation(Record):
    """A typed frontmatter relation between two pages (AFFILIATED_WITH, PART_OF, DEVELOPED_BY,
    ABOUT)."""

    type: str
    source: str
    target: str
    field: str
    line: int


class LogBullet(Record):
    """One `- Label: text` bullet of a log entry, `offset` lines below the entry's heading (so
    that an entry moved by an edit above it is one new record, not one per bullet)."""

    label: str
    text: str
    offset: int


class LogTouch(Record):
    """A page a log entry names, with the role the bullet gives it, on the line `offset` below
    the entry's heading."""

    page: str | None
    name: str
    role: TouchRole
    offset: int


class LogEntry(Record):
    """One entry of the append-only log. `key` is date plus its ordinal on that day (oldest
    first): `2026-06-17#03`."""

    key: str
    date: dt.date
    op: str
    title: str
    line: int
    seq: int
    day_seq: int
    style: str = "heading"
    bullets: tuple[LogBullet, ...] = ()
    touches: tuple[LogTouch, ...] = ()
    block_ids: tuple[str, ...] = ()
    text: str = ""

    def bullet_lines(self) -> list[tuple[int, LogBullet]]:
        """Each bullet with the line of the log it is on."""
        return [(self.line + b.offset, b) for b in self.bullets]

    @cached_property
    def signature(self) -> str:
        """Everything of the entry the provenance of other pages' facts depends on (its key,
        words, touches and block ids; not its line, which an entry added above it moves).
        Computed once per entry: a log edit compares it with the graph's, and writes it."""
        data = [self.key, self.title, self.text, sorted(self.block_ids),
                [(t.page, t.role.value) for t in self.touches]]
        return hashlib.blake2b(json.dumps(data, ensure_ascii=False).encode(),
                               digest_size=16).hexdigest()


class LogSegment(Record):
    """The lines of one log entry, `start` (its heading) to `end`, and a print of them and of
    the entry (see `loaders.log_segments`). `old_start`: the segment is unchanged since the
    graph's log, where it started at that line; its lines were not parsed again."""

    entry: str
    start: int
    end: int
    print: str
    old_start: int | None = None


class LineageAssertion(Record):
    """One assertion of a lineage edge: child relates to parent, said by page at line."""

    child: str
    parent: str
    relation: LineageRelation
    page: str
    line: int
    mechanism: Mechanism
    introduced_by: str | None = None
    text: str = ""


class ClaimRecord(Record):
    """A statement that can be true or false, with where it was said."""

    id: str
    text: str
    origin: str
    page: str | None
    line: int | None
    subject: str | None = None
    metric: str | None = None
    value: float | None = None
    unit: str | None = None
    qualifiers: tuple[str, ...] = ()
    assessment: str | None = None
    pages: tuple[str, ...] = ()
    introduced_by: str | None = None
    # When the vault first had it on record: its introducing log entry's date, else that of the
    # log entry whose lines hold it, else (numeric claims) its page's updated or created date.
    # Folds date conflicts by it; stored so that they need not look it up.
    known: dt.date | None = None


class ContradictionRecord(Record):
    """Claims that disagree, with how the disagreement was found and the evidence lines."""

    id: str
    kind: str
    status: str
    origin: str
    summary: str
    page: str | None
    line: int | None
    claims: tuple[str, ...] = ()
    pages: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()
    introduced_by: str | None = None
    subject: str | None = None
    # Of a conflict between claims: the day the last of its disagreeing values was on record
    # (each value known from its earliest statement); None when one value has no known date.
    known: dt.date | None = None


class Mention(Record):
    """A known page named in plain text of another page that does not link it there."""

    source: str
    target: str
    line: int
    text: str


class FoldPage(Record):
    """What an existing fold page declares about itself."""

    page: str
    fold_id: str
    level: int | None
    entry_count: int | None
    range_from: dt.date | None
    range_to: dt.date | None
    child_keys: tuple[str, ...] = ()
    children_format: str = "flat"
    entries: tuple[str, ...] = ()


class Problem(Record):
    """Something the loader could not read; the run goes on and says so."""

    path: str
    line: int | None = None
    message: str
    skipped: bool = False

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class PageFacts(Record):
    """Everything one page asserts; replaced as a unit when the page changes."""

    page: Page
    links: tuple[Link, ...] = ()
    authorships: tuple[Authorship, ...] = ()
    relations: tuple[PageRelation, ...] = ()
    lineage: tuple[LineageAssertion, ...] = ()
    claims: tuple[ClaimRecord, ...] = ()
    contradictions: tuple[ContradictionRecord, ...] = ()
    mentions: tuple[Mention, ...] = ()
    fold: FoldPage | None = None
    log_entries: tuple[LogEntry, ...] = ()
    log_segments: tuple[LogSegment, ...] = ()
    log_context: str | None = None  # the log's `log_segments.context_print`
    is_log: bool = False
    venue: str | None = None


class PageStamp(Record):
    """A file's stamp (modification time, size) for a page whose content did not change: the
    graph records it so the next run need not read the file."""

    key: str
    mtime_ns: int
    size: int


class VaultSnapshot(Record):
    """The loader's whole output for one run."""

    root: str
    facts: tuple[PageFacts, ...] = ()
    unchanged: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = Field(default_factory=tuple)
    stamps: tuple[PageStamp, ...] = ()
