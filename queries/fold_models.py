"""Typed data of the fold resolver: what the graph hands the builder (`*Facts`) and the digest
the builder hands the renderer, the checker, the CLI and the API (`FoldDigest`). A digest
carries everything its derived sections are computed from, so two digests can be folded
again without going back to the graph."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict

PageState = Literal["present", "missing"]
Timing = Literal["earlier", "in range", "later", "undated"]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


# ---- inputs (read from the graph by queries/folds.py) ------------------------------------------

class BulletFacts(Frozen):
    """One `- Label: text` bullet of a log entry."""

    label: str
    text: str
    line: int


class ConceptFacts(Frozen):
    """A concept a page is ABOUT, with the date its page was created (None: unknown)."""

    key: str
    created: dt.date | None = None


class TouchFacts(Frozen):
    """A page (or dangling name) a log entry links, with the bullet's role and line."""

    role: str
    line: int | None = None
    key: str | None  # Page.key; None for a Dangling target
    name: str  # Page.key or Dangling.name
    kind: str | None = None
    created: dt.date | None = None
    aliases: tuple[str, ...] = ()
    about: tuple[ConceptFacts, ...] = ()


class EntryFacts(Frozen):
    """One LogEntry as the graph holds it."""

    key: str
    date: dt.date
    op: str
    title: str
    seq: int
    text: str = ""
    bullets: tuple[BulletFacts, ...] = ()
    touches: tuple[TouchFacts, ...] = ()


class ClaimFacts(Frozen):
    """A claim a contradiction involves, with every date that can say when it was known."""

    id: str
    value: float | None = None
    introduced: dt.date | None = None  # date of its introducing log entry
    log_date: dt.date | None = None  # date of the log entry whose lines hold it (log claims)
    page_updated: dt.date | None = None
    page_created: dt.date | None = None


class ContradictionFacts(Frozen):
    """A Contradiction node that touches the range, with what dates it."""

    id: str
    kind: str
    status: str
    origin: str
    summary: str = ""
    subject: str | None = None
    pages: tuple[str, ...] = ()
    introduced_by: str | None = None
    introduced: dt.date | None = None
    known: dt.date | None = None  # of a conflict of claims, stored at ingest
    page_updated: dt.date | None = None
    claims: tuple[ClaimFacts, ...] = ()  # read only when neither date above is there


# ---- the digest --------------------------------------------------------------------------------

class PageRef(Frozen):
    """A page a child entry links: its key (or dangling name), the name as the log wrote it,
    and whether the vault has it (as of the digest's date)."""

    key: str
    link: str
    state: PageState
    kind: str | None = None


class ChildEntry(Frozen):
    """One leaf log entry of a fold. `child_key` numbers it by position within the fold's date
    range, oldest first (`log-YYYYMMDD-NNN`)."""

    child_key: str
    entry_key: str
    seq: int
    date: dt.date
    op: str
    title: str
    pages: tuple[PageRef, ...] = ()
    summary: str = ""
    summary_label: str = ""
    linked_pages: tuple[PageRef, ...] = ()
    about: tuple[str, ...] = ()
    text: str = ""


class Outcome(Frozen):
    """An extractive sentence from one child entry, with the numbers it states."""

    text: str
    child_key: str
    entry_key: str
    numbers: tuple[str, ...] = ()


class Theme(Frozen):
    """A concept the pages of at least two child entries are about."""

    concept: str
    support: tuple[str, ...]  # child keys, oldest first


class ContradictionItem(Frozen):
    """A contradiction or correction touching the fold: when it became known (`date`, how that
    was decided in `date_basis`) and, relative to the range, `timing`; `affects` lists the
    child keys it bears on."""

    id: str
    kind: str
    status: str
    origin: str
    summary: str = ""
    subject: str | None = None
    pages: tuple[str, ...] = ()
    introduced_by: str | None = None
    date: dt.date | None = None
    date_basis: str = "unknown"
    timing: Timing = "undated"
    affects: tuple[str, ...] = ()


class RelatedLink(Frozen):
    """A `## Related` line: link target and what it is."""

    target: str
    note: str


class FoldDigest(Frozen):
    """An extractive digest of the log entries of a range (see docs/folds.md)."""

    fold_id: str
    title: str
    level: int
    entry_count: int
    range_from: dt.date
    range_to: dt.date
    as_of: dt.date | None = None
    knowledge_date: dt.date
    base_seq: int  # seq of the first log entry dated range_from (child keys count from it)
    log_page: str = "log"
    children: tuple[ChildEntry, ...]  # oldest first
    outcomes: tuple[Outcome, ...] = ()
    themes: tuple[Theme, ...] = ()
    dominant_themes: tuple[str, ...] = ()
    contradictions: tuple[ContradictionItem, ...] = ()
    child_pages: tuple[PageRef, ...] = ()
    related: tuple[RelatedLink, ...] = ()
    child_folds: tuple[str, ...] = ()

    @property
    def child_keys(self) -> list[str]:
        return [c.child_key for c in self.children]


class FoldSummary(Frozen):
    """A Fold node of the graph, as `folds(level:)` lists it."""

    fold_id: str
    key: str
    level: int | None
    entry_count: int | None
    range_from: dt.date | None
    range_to: dt.date | None
    child_keys: tuple[str, ...] = ()
    entries: int = 0
    path: str | None = None


class CheckResult(Frozen):
    """One check of the fold template: passed or not, and why not."""

    name: str
    ok: bool
    problems: tuple[str, ...] = ()


class FoldCheck(Frozen):
    """The validation of one fold page."""

    fold_id: str | None
    ok: bool
    checks: tuple[CheckResult, ...]
    warnings: tuple[str, ...] = ()
