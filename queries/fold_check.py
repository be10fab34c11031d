"""Validation of a fold page (generated or written by hand) against the fold template's checks:
entry count, child-key/table bijection, numeric traceability of the key outcomes, themes with
at least two supporting entries, missing pages said explicitly. Pure: it reads markdown, and
optionally a `CheckContext` (the graph's view of the same child entries and link names) for
the checks that need the log itself.

Citations are read the way fold pages write them: child keys (`log-20260617-003`), or a date
followed by entry names (`2026-06-17 GPipe, PipeDream エントリ`); a name that matches no entry
of that date stands for every entry of that date. A number is traceable when it appears in a
cited entry, or when it is a span in years (`7 年間`, `7 years`) between two years there."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, ConfigDict

from loaders.errors import VaultError
from loaders.frontmatter import split_frontmatter
from loaders.links import find_links
from loaders.text import fold_name
from queries.fold_digest import fold_id_for
from queries.fold_models import CheckResult, ChildEntry, FoldCheck, FoldDigest
from queries.fold_text import CHILD_KEY, DATE, ceil_log2, numbers, split_citation

FOLD_ID = re.compile(r"^fold-k(\d+)-from-(\d{4}-\d{2}-\d{2})-to-(\d{4}-\d{2}-\d{2})-n(\d+)$")
KEY_FORMAT = re.compile(r"^log-(\d{8})-(\d{3,})$")
SECTION_NAMES = {
    "child entries": "children", "子エントリ": "children",
    "key outcomes": "outcomes", "主要 outcome": "outcomes", "主要outcome": "outcomes",
    "cross-entry themes": "themes", "エントリ横断テーマ": "themes",
    "contradictions or corrections": "contradictions", "矛盾または訂正": "contradictions",
    "child pages": "pages", "子ページ": "pages",
    "related": "related", "関連": "related",
}
SECTION_ORDER = ("children", "outcomes", "themes", "contradictions", "pages", "related")
COLUMN_NAMES = {"date": "date", "日付": "date", "op": "op", "title": "title",
                "タイトル": "title", "page": "page", "ページ": "page", "summary": "summary",
                "要約": "summary", "child key": "child_key", "key": "child_key"}
MISSING_MARKERS = ("(missing)", "missing", "ソース欠落", "欠落", "page_missing")
NO_THEME = re.compile(r"no cross-entry theme|検出されず|テーマは検出", re.IGNORECASE)
SUPPORT_PREFIX = re.compile(r"^\s*(?:supported by|support|サポート|from)\s*[:：]?\s*",
                            re.IGNORECASE)
NAME_SUFFIX = re.compile(r"\s*(?:の?エントリ|entries|entry|より)\s*$", re.IGNORECASE)
NAME_SPLIT = re.compile(r"[,、，]|\s\+\s|＋")
YEAR_SPAN = re.compile(r"(\d+)\s*(?:年間|年|-?\s?years?\b)")
MAX_LISTED = 8


class CheckContext(BaseModel):
    """What the graph knows about the page's child entries (by child key) and about every name
    the page links (name -> page key; None: no such page)."""

    model_config = ConfigDict(frozen=True)

    children: dict[str, ChildEntry]
    names: dict[str, str | None]


@dataclass
class Row:
    """One row of the Child Entries table."""

    line: int
    cells: dict[str, str]

    @property
    def date(self) -> str:
        return self.cells.get("date", "").strip()


@dataclass
class ParsedFold:
    """A fold page split into its parts."""

    front: dict[str, Any]
    scope: str
    sections: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)

    def bullets(self, section: str) -> list[tuple[int, str]]:
        out: list[tuple[int, str]] = []
        for number, text in self.sections.get(section, []):
            stripped = text.strip()
            if stripped.startswith(("- ", "* ")):
                out.append((number, stripped[2:].strip()))
            elif out and stripped and text[:1] in " \t":
                out[-1] = (out[-1][0], f"{out[-1][1]} {stripped}")
        return out


@dataclass
class Cited:
    """An entry as a citation can name it."""

    child_key: str
    date: str
    op: str
    title: str
    names: str  # page names, for matching a citation name
    text: str  # where its numbers are looked up


def _cells(line: str) -> list[str]:
    parts = re.split(r"(?<!\\)\|", line.strip())
    if parts and not parts[0].strip():
        parts = parts[1:]
    if parts and not parts[-1].strip():
        parts = parts[:-1]
    return [p.strip().replace("\\|", "|") for p in parts]


def _column(header: str) -> str | None:
    name = header.strip().lower()
    for prefix, column in COLUMN_NAMES.items():
        if name.startswith(prefix):
            return column
    return None


def parse_fold(text: str, path: str = "fold.md") -> ParsedFold:
    """Frontmatter, scope paragraph, sections by their `## ` headings, and the table rows."""
    front = split_frontmatter(text, path)
    lines = front.lines
    parsed = ParsedFold(front=front.data, scope="")
    current: str | None = None
    scope: list[str] = []
    for index in range(front.body_start - 1, len(lines)):
        number, line = index + 1, lines[index]
        if line.startswith("## "):
            name = line[3:].strip().lower()
            current = SECTION_NAMES.get(name, f"other:{name}")
            parsed.order.append(current)
            parsed.sections.setdefault(current, [])
            continue
        if current is None:
            if line.strip() and not line.startswith("# "):
                scope.append(line.strip())
            continue
        parsed.sections[current].append((number, line))
    parsed.scope = " ".join(scope)
    columns: list[str | None] = []
    for number, line in parsed.sections.get("children", []):
        if not line.strip().startswith("|"):
            continue
        cells = _cells(line)
        if not columns:
            columns = [_column(c) for c in cells]
            continue
        if all(set(c) <= set("-: ") for c in cells):
            continue
        parsed.rows.append(Row(line=number, cells={
            col: cell for col, cell in zip(columns, cells, strict=False) if col}))
    return parsed


# ---- frontmatter helpers -----------------------------------------------------------------------

def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def _date(value: object) -> str | None:
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str) and DATE.fullmatch(value.strip()):
        return value.strip()
    return None


def _range(front: dict[str, Any]) -> tuple[str | None, str | None]:
    start, end = _date(front.get("range_from")), _date(front.get("range_to"))
    nested = front.get("entry_range")
    if isinstance(nested, dict):
        start = start or _date(nested.get("from"))
        end = end or _date(nested.get("to"))
    return start, end


def _declared_keys(front: dict[str, Any]) -> list[str] | None:
    keys = front.get("child_keys")
    if isinstance(keys, list):
        return [str(k) for k in keys]
    return None


def _children_records(front: dict[str, Any]) -> list[dict[str, Any]]:
    children = front.get("children")
    return [c for c in children if isinstance(c, dict)] if isinstance(children, list) else []


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f" (+{len(items) - MAX_LISTED} more)" if len(items) > MAX_LISTED else "")


# ---- checks ------------------------------------------------------------------------------------

def _check_sections(p: ParsedFold) -> CheckResult:
    problems = [f"section `{name}` is missing" for name in SECTION_ORDER
                if name not in p.sections]
    if not p.scope:
        problems.append("the scope paragraph before the first section is missing")
    return CheckResult(name="sections", ok=not problems, problems=tuple(problems))


def _check_frontmatter(p: ParsedFold, path: str | None) -> CheckResult:
    f = p.front
    problems: list[str] = []
    if str(f.get("type", "")).strip() != "fold":
        problems.append(f"type is {f.get('type')!r}, not 'fold'")
    fold_id = str(f.get("fold_id") or "")
    level, count = _int(f.get("batch_exponent")), _int(f.get("entry_count"))
    start, end = _range(f)
    for name, value in (("fold_id", fold_id), ("batch_exponent", level),
                        ("entry_count", count), ("range_from", start), ("range_to", end)):
        if value in (None, ""):
            problems.append(f"`{name}` is missing or unreadable")
    if _declared_keys(f) is None and not _children_records(f):
        problems.append("neither `child_keys` nor `children` is declared")
    tags = f.get("tags")
    if not isinstance(tags, list) or "fold" not in [str(t) for t in tags]:
        problems.append("`tags` does not include fold")
    if not isinstance(f.get("related"), list):
        problems.append("`related` is missing")
    if fold_id and not FOLD_ID.match(fold_id):
        problems.append(f"fold_id {fold_id!r} is not fold-k{{K}}-from-{{FROM}}-to-{{TO}}-n{{N}}")
    if fold_id and level is not None and count is not None and start and end:
        expected = fold_id_for(level, dt.date.fromisoformat(start),
                               dt.date.fromisoformat(end), count)
        if fold_id != expected:
            problems.append(f"fold_id {fold_id} does not match its fields ({expected})")
    if path and fold_id and PurePath(path).stem != fold_id:
        problems.append(f"file name {PurePath(path).name} is not {fold_id}.md")
    return CheckResult(name="frontmatter", ok=not problems, problems=tuple(problems))


def _check_count(p: ParsedFold) -> CheckResult:
    f = p.front
    problems: list[str] = []
    count, level = _int(f.get("entry_count")), _int(f.get("batch_exponent"))
    keys = _declared_keys(f)
    declared = len(keys) if keys is not None else len(_children_records(f))
    if count is None:
        return CheckResult(name="entry_count", ok=False, problems=("no entry_count",))
    if declared != count:
        problems.append(f"entry_count {count} but {declared} child keys")
    if len(p.rows) != count:
        problems.append(f"entry_count {count} but the Child Entries table has {len(p.rows)} rows")
    if level is not None and count > 0 and level != ceil_log2(count):
        problems.append(f"batch_exponent {level} but ceil(log2 {count}) = {ceil_log2(count)}")
    start, end = _range(f)
    dates = sorted(r.date for r in p.rows if r.date)
    if dates and (start, end) != (dates[0], dates[-1]):
        problems.append(f"range {start}..{end} but the table spans {dates[0]}..{dates[-1]}")
    return CheckResult(name="entry_count", ok=not problems, problems=tuple(problems))


def _pairs(p: ParsedFold) -> list[tuple[str, Row]]:
    """(child key, row): keys oldest first, table newest first, paired by position."""
    keys = _declared_keys(p.front) or []
    return list(zip(keys, reversed(p.rows), strict=False))


def _check_bijection(p: ParsedFold, ctx: CheckContext | None) -> CheckResult:
    problems: list[str] = []
    keys = _declared_keys(p.front)
    if keys is None:
        records = _children_records(p.front)
        declared = sorted((str(c.get("date", "")), str(c.get("title", ""))) for c in records)
        table = sorted((r.date, r.cells.get("title", "")) for r in p.rows)
        if declared != table:
            problems.append("`children` and the table rows differ (date, title)")
        return CheckResult(name="child_keys", ok=not problems, problems=tuple(problems))
    if len(keys) != len(p.rows):
        problems.append(f"{len(keys)} child keys but {len(p.rows)} table rows")
    bad = [k for k in keys if not KEY_FORMAT.match(k)]
    if bad:
        problems.append(f"child keys not of the form log-YYYYMMDD-NNN: {_listed(bad)}")
    if len(set(keys)) != len(keys):
        problems.append("child keys repeat")
    positions = [int(m.group(2)) for k in keys if (m := KEY_FORMAT.match(k))]
    if positions != sorted(set(positions)):
        problems.append("child keys are not numbered in increasing position order")
    table_dates = [r.date for r in p.rows]
    if table_dates != sorted(table_dates, reverse=True):
        problems.append("the table is not newest first")
    for key, row in _pairs(p):
        match = KEY_FORMAT.match(key)
        if match and match.group(1) != row.date.replace("-", ""):
            problems.append(f"{key} pairs with the row dated {row.date} (line {row.line})")
        if ctx is None:
            continue
        child = ctx.children.get(key)
        if child is None:
            problems.append(f"{key} is not a log entry of the range")
            continue
        for column, value in (("date", child.date.isoformat()), ("op", child.op),
                              ("title", child.title)):
            if " ".join(row.cells.get(column, "").split()) != " ".join(value.split()):
                problems.append(f"{key}: table {column} {row.cells.get(column)!r} but the log "
                                f"says {value!r} (line {row.line})")
        written = {_resolve(ctx, lk.target) or lk.target
                   for lk in find_links(row.cells.get("page", ""))}
        if written != {r.key for r in child.pages}:
            problems.append(f"{key}: Page column {_listed(sorted(str(w) for w in written))} but "
                            f"the entry's pages are {_listed([r.key for r in child.pages])}")
    return CheckResult(name="child_keys", ok=not problems, problems=tuple(problems))


def _resolve(ctx: CheckContext, name: str) -> str | None:
    return ctx.names.get(name, None)


def _cited_entries(p: ParsedFold, ctx: CheckContext | None) -> list[Cited]:
    out: list[Cited] = []
    for key, row in _pairs(p):
        child = ctx.children.get(key) if ctx else None
        if child is not None:
            names = " ".join([r.link for r in child.pages] + [r.key for r in child.pages])
            out.append(Cited(key, child.date.isoformat(), child.op, child.title, names,
                             child.text))
        else:
            cells = row.cells
            out.append(Cited(key, row.date, cells.get("op", ""), cells.get("title", ""),
                             cells.get("page", ""),
                             " ".join(v for k, v in cells.items() if k != "date")))
    return out


def _name_matches(name: str, entry: Cited) -> bool:
    wanted, title = fold_name(name), fold_name(entry.title)
    if not wanted:
        return False
    if wanted in title or (title and title in wanted):
        return True
    haystack = f"{title} {fold_name(entry.names)}"
    words = [w for w in re.split(r"[\s/・]+", wanted)
             if len(w) >= 3 and not w.isdigit()]
    return any(w == fold_name(entry.op) or w in haystack for w in words)


def resolve_citation(citation: str, entries: list[Cited]) -> list[Cited]:
    """The entries a citation names (child keys first, else dates with names)."""
    keys = [m.group(0) for m in CHILD_KEY.finditer(citation)]
    if keys:
        return [e for e in entries if e.child_key in keys]
    text = SUPPORT_PREFIX.sub("", citation)
    found: dict[str, Cited] = {}
    marks = list(DATE.finditer(text))
    for index, mark in enumerate(marks):
        stop = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        day = [e for e in entries if e.date == mark.group(1)]
        names = [NAME_SUFFIX.sub("", n).strip() for n in
                 NAME_SPLIT.split(text[mark.end():stop])]
        names = [n for n in names if n]
        for name in names or [""]:
            hits = [e for e in day if name and _name_matches(name, e)] or day
            found.update({e.child_key: e for e in hits})
    return list(found.values())


def _traceable(statement: str, cited: list[Cited]) -> list[str]:
    """Numbers of the statement that none of the cited entries states."""
    pool: set[str] = set()
    for entry in cited:
        pool.update(numbers(entry.text))
    years = sorted({int(n) for n in pool if n.isdigit() and 1900 <= int(n) <= 2100})
    spans = {str(b - a) for i, a in enumerate(years) for b in years[i + 1:]}
    span_numbers = {m.group(1).lstrip("0") or "0" for m in YEAR_SPAN.finditer(statement)}
    return [n for n in numbers(statement)
            if n not in pool and not (n in span_numbers and n in spans)]


def _check_numbers(p: ParsedFold, ctx: CheckContext | None) -> CheckResult:
    problems: list[str] = []
    entries = _cited_entries(p, ctx)
    for index, (line, bullet) in enumerate(p.bullets("outcomes"), start=1):
        statement, citation = split_citation(bullet)
        cited = resolve_citation(citation, entries) if citation else []
        if not cited:
            problems.append(f"key outcome {index} (line {line}) cites no child entry")
            continue
        untraced = _traceable(statement, cited)
        if untraced:
            problems.append(f"key outcome {index} (line {line}): {_listed(untraced)} not in "
                            f"{_listed([e.child_key for e in cited])}")
    if ctx is not None:
        for key, row in _pairs(p):
            child = ctx.children.get(key)
            if child is None:
                continue
            stray = sorted(set(numbers(row.cells.get("summary", ""))) - set(numbers(child.text)))
            if stray:
                problems.append(f"{key}: summary numbers {_listed(stray)} are not in the entry")
    return CheckResult(name="numeric_traceability", ok=not problems, problems=tuple(problems))


def _check_themes(p: ParsedFold, ctx: CheckContext | None) -> CheckResult:
    problems: list[str] = []
    entries = _cited_entries(p, ctx)
    for index, (line, bullet) in enumerate(p.bullets("themes"), start=1):
        if NO_THEME.search(bullet):
            continue
        _, citation = split_citation(bullet)
        support = resolve_citation(citation, entries) if citation else []
        if len(support) < 2:
            problems.append(f"theme {index} (line {line}) names {len(support)} supporting "
                            "entries; it needs at least 2")
    return CheckResult(name="themes", ok=not problems, problems=tuple(problems))


def _says_missing(text: str) -> bool:
    lowered = re.sub(r"\[\[[^\]]*\]\]", " ", text).lower()
    return any(m in lowered for m in MISSING_MARKERS)


def _check_missing(p: ParsedFold, ctx: CheckContext | None) -> CheckResult:
    problems: list[str] = []
    records = _children_records(p.front)
    flagged = {str(c.get("title", "")) for c in records if c.get("page_missing") is True}
    for row in p.rows:
        cell = row.cells.get("page", "")
        links = find_links(cell)
        explicit = _says_missing(cell) or _says_missing(row.cells.get("summary", "")) \
            or row.cells.get("title", "") in flagged
        if not links and not explicit:
            problems.append(f"row at line {row.line} names no page and does not say it is missing")
        if ctx is not None and not explicit:
            gone = [lk.target for lk in links if _resolve(ctx, lk.target) is None]
            if gone:
                problems.append(f"row at line {row.line}: {_listed(gone)} missing but not "
                                "marked (missing)")
    if ctx is not None:
        for line, bullet in p.bullets("pages"):
            gone = [lk.target for lk in find_links(bullet) if _resolve(ctx, lk.target) is None]
            if gone and not _says_missing(bullet):
                problems.append(f"child page {_listed(gone)} (line {line}) is missing but not "
                                "marked (missing)")
    return CheckResult(name="missing_pages", ok=not problems, problems=tuple(problems))


def _check_child_pages(p: ParsedFold, ctx: CheckContext) -> CheckResult:
    listed: set[str] = set()
    for _, bullet in p.bullets("pages"):
        for lk in find_links(bullet):
            listed.add(_resolve(ctx, lk.target) or lk.target)
    linked = {r.key for c in ctx.children.values() for r in c.linked_pages}
    problems = []
    if linked - listed:
        problems.append(f"linked by the child entries but not listed: "
                        f"{_listed(sorted(linked - listed))}")
    if listed - linked:
        problems.append(f"listed but linked by no child entry: {_listed(sorted(listed - linked))}")
    return CheckResult(name="child_pages", ok=not problems, problems=tuple(problems))


def link_names(text: str) -> list[str]:
    """Every link target of a fold page body (what a CheckContext must resolve)."""
    names: dict[str, None] = {}
    for line in text.split("\n"):
        for lk in find_links(line.replace("\\|", "|")):
            names.setdefault(lk.target, None)
    return list(names)


def check_fold(text: str, path: str | None = None,
               context: CheckContext | None = None) -> FoldCheck:
    """Every check of the fold template; a page that cannot be parsed fails `frontmatter`."""
    try:
        parsed = parse_fold(text, path or "fold.md")
    except VaultError as exc:
        return FoldCheck(fold_id=None, ok=False, checks=(
            CheckResult(name="frontmatter", ok=False, problems=(str(exc),)),))
    checks = [_check_sections(parsed), _check_frontmatter(parsed, path), _check_count(parsed),
              _check_bijection(parsed, context), _check_numbers(parsed, context),
              _check_themes(parsed, context), _check_missing(parsed, context)]
    if context is not None:
        checks.append(_check_child_pages(parsed, context))
    warnings: list[str] = []
    present = [s for s in parsed.order if s in SECTION_ORDER]
    if present != [s for s in SECTION_ORDER if s in present]:
        warnings.append("sections are not in the template's order")
    outcomes = len(parsed.bullets("outcomes"))
    if outcomes and not 3 <= outcomes <= 7:
        warnings.append(f"{outcomes} key outcomes (the template asks for 3 to 7)")
    fold_id = parsed.front.get("fold_id")
    return FoldCheck(fold_id=str(fold_id) if fold_id else None,
                     ok=all(c.ok for c in checks), checks=tuple(checks),
                     warnings=tuple(warnings))


def context_of(digest: FoldDigest) -> CheckContext:
    """The check context a digest carries itself: its child entries and the names it links
    (a dangling name resolves to nothing)."""
    names: dict[str, str | None] = {}
    for child in digest.children:
        for ref in (*child.pages, *child.linked_pages):
            key = None if ref.kind is None and ref.state == "missing" else ref.key
            names.setdefault(ref.link, key)
            names.setdefault(ref.key, key)
    for ref in digest.child_pages:
        names.setdefault(ref.key, None if ref.kind is None and ref.state == "missing"
                         else ref.key)
    return CheckContext(children={c.child_key: c for c in digest.children}, names=names)
