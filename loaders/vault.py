"""Walk a vault and turn it into records. Pure: files in, records out; never opens a database.

Two passes: a cheap header pass over every file (hash, frontmatter, names) builds the name index;
the full parse then runs only on pages that changed since `previous` (or whose links or mentions
a changed name could affect). Which files are read, and when a file's stamp spares reading it:
`loaders.files` and `loaders.scan`."""

from __future__ import annotations

import datetime as dt
import functools
import posixpath
import re
import time
from bisect import bisect_right
from collections.abc import Callable, Collection, Generator, Mapping
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Any, Protocol, TypeVar, overload

from loaders import page_parser as pp
from loaders.errors import VaultError
from loaders.fact_ids import lint_id
from loaders.files import (
    LOG_STEM,
    PreviousPage,
    StaleStamp,
    VaultFile,
    hydrate,
    text_of,
    vault_root,
)
from loaders.fold_pages import fold_corrections, parse_fold_page
from loaders.gc_pause import cyclic_gc_paused
from loaders.ledger import parse_ledger
from loaders.links import body_lines
from loaders.log import LogParse, entry_day, parse_log
from loaders.log_segments import (
    LogState,
    SegmentIndex,
    context_print,
    reusable,
    segment_prints,
)
from loaders.mention_filter import MAX_CHARS as MENTION_FILTER_CHARS
from loaders.mention_filter import NameCandidates, NameScan, unlinked
from loaders.mentions import MentionFinder
from loaders.pages import parse_source_name
from loaders.parallel import ordered_imap
from loaders.provenance import (
    EntryIndex,
    changed_entries,
    claims_introduced,
    contradiction_introduced,
    lineage_introduced,
    touched,
)
from loaders.records import (
    ClaimRecord,
    ContradictionRecord,
    FoldPage,
    LogEntry,
    LogSegment,
    Page,
    PageFacts,
    PageKind,
    PageStamp,
    Problem,
    VaultSnapshot,
)
from loaders.resolver import NameIndex, PageHeader, rank
from loaders.scan import NameState, VaultScan, scan_files
from loaders.stream import VaultStream, WrittenLog
from loaders.text import fold_name

T = TypeVar("T")

# Pages parsed and written together (see `stream_vault`): enough rows for full write batches,
# few enough that an ingest holds two chunks' records, not the vault's.
CHUNK_PAGES = 2000
# Parse workers run at this lower CPU priority: the writer and Neo4j, which an ingest waits
# for, get the cores they need, and the workers the rest.
PARSE_NICE = 10
VENUE_YEAR = re.compile(r"[\s'’]*(?:19|20)\d{2}$")
CHILD_KEY = re.compile(r"^log-(\d{8})-(\d+)$")


@dataclass
class LoadOptions:
    """How to load: which pages the graph already has, whether to re-parse everything."""

    previous: Mapping[str, PreviousPage] = field(default_factory=dict)
    force: bool = False  # re-read and re-parse every file, whatever the stamps say
    stamps: bool = True  # skip reading files whose stamp matches `previous`
    mentions: bool = True
    progress: Callable[[int, int], None] | None = None
    workers: int | None = None  # parse processes; None: one per core for large jobs
    # The scan of the load whose graph `previous` is, and the paths changed since (relative to
    # the vault root, e.g. from a file watcher): only those are read again (`loaders.scan`).
    scan: VaultScan | None = None
    changed: Collection[str] | None = None
    # The log entries the graph holds: when the log changes, pages whose facts' provenance its
    # changed entries take part in are parsed again (None: they are not).
    log_history: LogHistory | None = None

    @property
    def trusts_stamps(self) -> bool:
        """Whether a file whose stamp the graph (or the last scan) has may go unread."""
        return self.stamps and not self.force


class LogHistory(Protocol):
    """What the graph holds of the log's entries (see `_provenance_affected`)."""

    def entry_signatures(self) -> Mapping[str, str | None]:
        """`LogEntry.signature` of each entry the graph holds, by key."""
        ...

    def entries_reach(self, keys: Collection[str]) -> tuple[set[str], set[str]]:
        """Pages these entries touch (as `provenance.touched` counts them) and their block
        ids."""
        ...

    def log_state(self, page: str) -> LogState | None:
        """The log page's context print and its entries' lines and segment prints."""
        ...


def _by_rank(f: VaultFile) -> tuple[int, int, str]:
    return rank(f.header)


def _assign_keys(files: list[VaultFile]) -> dict[str, list[VaultFile]]:
    """Key = file stem; where stems repeat, the shortest path keeps it, others use their path.
    Returns the pages by stem, each list in rank order (for `_duplicate_names`)."""
    by_stem: dict[str, list[VaultFile]] = {}
    for f in files:
        if not f.rel.endswith(".json"):
            by_stem.setdefault(f.header.stem, []).append(f)
    for stem, group in by_stem.items():
        if len(group) > 1:
            group.sort(key=_by_rank)
        for position, f in enumerate(group):
            key = stem if position == 0 else posixpath.splitext(f.rel)[0]
            if key != f.header.key:
                f.header = replace(f.header, key=key)
    return by_stem


def _duplicate_names(by_stem: dict[str, list[VaultFile]]) -> list[Problem]:
    """Warnings for pages that share a file name (they got path keys) or a title (links go by
    file name, so a reader may not get the page they expect), from `_assign_keys`' groups.
    Only pages sharing a name are ranked; the warnings come in rank order."""
    found: list[tuple[tuple[int, int, str], Problem]] = []
    by_title: dict[str, list[VaultFile]] = {}
    for stem, group in by_stem.items():
        found += [(_by_rank(f), Problem(path=f.rel, message=f"page name '{stem}' is also used "
                                                            f"by {group[0].rel}; this page's "
                                                            f"key is '{f.header.key}'"))
                  for f in group[1:]]
        by_title.setdefault(fold_name(group[0].header.title), []).append(group[0])
    for group in by_title.values():
        if len(group) > 1:
            group.sort(key=_by_rank)
            found += [(_by_rank(f), Problem(path=f.rel, message=f"title '{f.header.title}' is "
                                                                f"also the title of "
                                                                f"{group[0].rel}; links go by "
                                                                f"file name"))
                      for f in group[1:]]
    found.sort(key=lambda item: item[0])
    return [problem for _, problem in found]


def _page(f: VaultFile) -> Page:
    _, front = f.content
    naming = parse_source_name(f.header.stem)
    year = front.data.get("year")
    venue = _venue_name(front.text("venue")) or (naming.venue if naming else None)
    return Page(
        key=f.header.key, path=f.rel, kind=f.header.kind, title=f.header.title,
        aliases=f.header.aliases,
        tags=tuple(dict.fromkeys(str(t).lstrip("#") for t, _ in front.items("tags"))),
        source_type=front.text("source_type"), entity_type=front.text("entity_type"),
        year=_year(year) or (naming.year if naming else None),
        venue=venue if f.header.kind in (PageKind.PAPER, PageKind.SOURCE) else None,
        url=front.text("url"), status=front.text("status"), created=front.date("created"),
        updated=front.date("updated"), date_published=front.date("date_published"),
        body="\n".join(front.lines[front.body_start - 1:]), content_hash=f.digest,
        names_folded=_names_of(f),
        mtime_ns=f.stamp, size=f.size)


def _year(value: object) -> int | None:
    """A `year:` property as a year; anything else (`²`, `true`, 20 digits that overflow
    Neo4j's integers) is no year."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10000:
        return value
    return None


def _venue_name(text: str | None) -> str | None:
    """`OSDI 2024` and `OSDI` are one venue; the year lives on the paper."""
    if not text:
        return None
    return VENUE_YEAR.sub("", text).strip() or text.strip()


def _names_of(f: VaultFile) -> tuple[str, ...]:
    return tuple(sorted({fold_name(n) for n in (f.header.stem, f.header.title,
                                                *f.header.aliases) if n}))


def _changed_names(files: list[VaultFile], options: LoadOptions) -> set[str]:
    """Names that appeared, vanished or changed their page (or its kind) since `previous`."""
    current = {f.header.key: f for f in files}
    changed_names: set[str] = set()
    for key, prev in options.previous.items():
        f = current.get(key)
        if f is None:
            changed_names.update(prev.names)
        elif f.text is None and f.rel == prev.path:
            continue  # not read: its header is this row's, so are its names
        elif _names_of(f) != prev.names or f.header.kind.value != prev.kind:
            changed_names.update(prev.names)
            changed_names.update(_names_of(f))
    for key, f in current.items():
        if key not in options.previous:
            changed_names.update(_names_of(f))
    return {n for n in changed_names if len(n) >= 2}


def _affected_by_names(files: list[VaultFile], options: LoadOptions,
                       changed_names: set[str]) -> set[str]:
    """Unchanged pages whose text mentions one of `changed_names` (new and edited pages are
    parsed anyway). Texts of files the header pass skipped are read only when some name
    changed. One scan per text, whatever the number of changed names (a vault loaded into a
    graph of another one changes every name)."""
    if not changed_names:
        return set()
    scan = NameScan(changed_names, fold=fold_name)
    out: set[str] = set()
    for f in files:
        if _new_or_edited(f, options):
            continue  # parsed anyway
        text = text_of(f)
        # A file that cannot be read now is re-read (and its problem reported) by the parse.
        if text is None or scan.any_in(text):
            out.add(f.header.key)
    return out


def _new_or_edited(f: VaultFile, options: LoadOptions) -> bool:
    """The graph has no page of this key, or not of these bytes (and records version)."""
    prev = options.previous.get(f.header.key)
    return prev is None or prev.content_hash != f.digest


# The last name index of this process and its mention candidates: both depend only on the
# headers (a long-lived process, such as `vaultkg watch`, re-uses them while no page is added,
# removed, renamed or retitled).
_INDEX_CACHE: dict[tuple[PageHeader, ...], tuple[NameIndex, NameCandidates]] = {}
# The last log parse of this process, by log path: with its digest, the parse and its entry
# index. Its result depends only on the log file and the name index, which must be the very one
# it was parsed with (comparing 100k headers once per run is enough); a changed log (or index)
# is parsed again from it, which re-reads only the lines that changed (`parse_log`).
_LOG_CACHE: dict[str, tuple[str, LogParse, EntryIndex]] = {}


def _name_index(headers: tuple[PageHeader, ...]) -> tuple[NameIndex, NameCandidates]:
    hit = _INDEX_CACHE.get(headers)
    if hit is None:
        index = NameIndex.build(headers)
        hit = (index, NameCandidates(index.names()))
        _INDEX_CACHE.clear()
        _INDEX_CACHE[headers] = hit
    return hit


def clear_caches() -> None:
    """Forget the name index and log parse kept from earlier loads (as a new process would)."""
    _INDEX_CACHE.clear()
    _LOG_CACHE.clear()


def _log_entries(f: VaultFile, index: NameIndex,
                 problems: list[Problem]) -> tuple[list[LogEntry], list[Problem], EntryIndex]:
    """The log's entries, problems and index (from the cache when nothing they depend on
    changed)."""
    hit = _LOG_CACHE.get(f.rel)
    if hit is None or hit[0] != f.digest or hit[1].index is not index:
        hydrate(f, problems)
        _, front = f.content
        lines = body_lines(front.lines, front.body_start, mask=False)
        parsed = parse_log(lines, f.rel, index, hit[1] if hit else None)
        hit = (f.digest, parsed, EntryIndex(parsed.entries))
        _LOG_CACHE.clear()
        _LOG_CACHE[f.rel] = hit
    return list(hit[1].entries), list(hit[1].problems), hit[2]


def _known_by_path(options: LoadOptions) -> dict[str, PreviousPage]:
    if not options.trusts_stamps:
        return {}
    return {prev.path: prev for prev in options.previous.values() if prev.path}


def load_vault(path: Path, options: LoadOptions | None = None) -> VaultSnapshot:
    """Read a vault into records. Unreadable files become Problems; nothing raises for a bad
    page."""
    with cyclic_gc_paused():  # between chunks too: every record is kept (see `gc_pause`)
        return stream_vault(path, options).snapshot()


@overload
def stream_vault(path: Path, options: LoadOptions | None = None,
                 chunk_pages: int = CHUNK_PAGES) -> VaultStream[PageFacts]: ...


@overload
def stream_vault(path: Path, options: LoadOptions | None, chunk_pages: int,
                 then: Callable[[PageFacts], T]) -> VaultStream[T]: ...


def stream_vault(path: Path, options: LoadOptions | None = None,
                 chunk_pages: int = CHUNK_PAGES,
                 then: Callable[[PageFacts], Any] | None = None) -> VaultStream[Any]:
    """`load_vault` as a stream: the header pass, the name index and the log now; the pages
    that changed parsed (on every core) as the caller reads `chunks`, `chunk_pages` at a
    time. With `then`, each page's facts are handed to it where they were parsed (in a
    worker process), and chunks hold what it returns: work on the facts that runs on every
    core, and only its (smaller) result travels back."""
    options = options or LoadOptions()
    root = vault_root(path)
    with cyclic_gc_paused():
        try:
            plan = _plan(root, options)
        except StaleStamp:
            # Rare (a file edited under an unchanged stamp, or unreadable now): read every file.
            plan = _plan(root, replace(options, stamps=False))
    return VaultStream(root=str(root), todo=tuple(f.header.key for f in plan.todo),
                       unchanged=plan.unchanged, deleted=plan.deleted, stamps=plan.stamps,
                       problems=plan.problems, scan=plan.scan, log=plan.log,
                       log_moves=plan.log_moves, written_log=plan.written_log,
                       chunks=_parsed_chunks(plan, options, max(1, chunk_pages), then))


@dataclass
class _Plan:
    """What a load will parse, and how; known before any page is parsed."""

    todo: list[VaultFile]
    parse: Callable[[VaultFile], tuple[PageFacts, list[Problem]]]
    log_entries: tuple[LogEntry, ...]  # the log page's, which `parse` leaves out
    heavy_last: bool  # the last page is the log
    log: str | None  # the log page's key, if it is to be parsed
    log_moves: bool  # some of its entries are not parsed: their facts are to be moved
    written_log: WrittenLog | None  # the log's entries as the graph holds them once written
    unchanged: tuple[str, ...]
    deleted: tuple[str, ...]
    stamps: tuple[PageStamp, ...]
    problems: list[Problem]
    scan: VaultScan


def _plan(root: Path, options: LoadOptions) -> _Plan:
    problems: list[Problem] = []
    last = options.scan if options.trusts_stamps else None
    scanned = scan_files(root, lambda: _known_by_path(options), problems, time.time_ns(), last,
                         options.changed if last is not None else None)
    files = scanned.files
    if last is not None and last.names is not None and scanned.same_headers:
        # Every header is the last load's: so are keys, names, the index and the log page,
        # and only the files read again can be new or edited.
        names, considered = last.names, scanned.read
    else:
        names, considered = _names_state(files), files
    problems.extend(names.problems)
    index = names.index
    changed_names = _changed_names(files, options) \
        if options.previous and not options.force and considered is files else set()
    affected = _affected_by_names(files, options, changed_names)
    todo: list[VaultFile] = []
    unchanged: list[VaultFile] = []
    for f in considered:
        if options.force or _new_or_edited(f, options) or f.header.key in affected:
            todo.append(f)
        else:
            unchanged.append(f)
    for f in todo:
        hydrate(f, problems)
    log_file = next((f for f in files if f.rel == names.log_rel), None) \
        if names.log_rel else None
    entries: list[LogEntry] = []
    entry_index = EntryIndex(entries)
    # The log is parsed when it was read (its problems are reported) or pages need provenance.
    if log_file is not None and (todo or log_file.text is not None):
        entries, log_problems, entry_index = _log_entries(log_file, index, problems)
        problems.extend(log_problems)
        log_file.trusted = log_file.trusted and not log_problems
        if options.log_history is not None and not options.force and \
                any(f is log_file for f in todo):
            parsed = {f.header.key for f in todo}
            rest = [f for f in files if f.header.key not in parsed]
            again = _provenance_affected(entries, options.log_history, rest) if rest else set()
            more = [f for f in rest if f.header.key in again]
            for f in more:
                hydrate(f, problems)
            unchanged = [f for f in unchanged if f.header.key not in again]
            todo += more
    logged = log_file is not None and any(f is log_file for f in todo)
    segments, context = _log_segments(log_file, entries, entry_index, options,
                                      changed_names) if logged and log_file else ((), None)
    # The log is parsed last: at 100k pages it alone takes a core for half a minute (see
    # `ordered_imap`'s `heavy_last`), and no other page's rows need its entries.
    todo.sort(key=lambda f: f is log_file)
    keys = [f.header.key for f in files]
    if considered is not files:
        redone = {f.header.key for f in todo}
        kept = tuple(k for k in keys if k not in redone)
        deleted: list[str] = []
    else:
        kept = tuple(f.header.key for f in unchanged)
        deleted = sorted(set(options.previous) - set(keys))
    finder = MentionFinder(_mention_names(names.candidates, todo, log_file, segments)) \
        if options.mentions and todo else None

    def parse(f: VaultFile) -> tuple[PageFacts, list[Problem]]:
        found: list[Problem] = []
        if f.rel.endswith(".json"):
            return _ledger_facts(f, index, entry_index, found), found
        if f is not log_file:
            return _page_facts(f, index, finder, entry_index, [], found), found
        page_facts = _page_facts(f, index, finder, entry_index, entries, found, segments)
        # Without its entries: the reader has them (`_Plan.log_entries`), and a worker would
        # pickle 100k of them back.
        return page_facts.model_copy(update={"is_log": True, "log_entries": (),
                                             "log_context": context}), found

    return _Plan(todo=todo, parse=parse, log_entries=tuple(entries),
                 heavy_last=bool(todo) and todo[-1] is log_file,
                 log=log_file.header.key if logged and log_file else None,
                 log_moves=any(s.old_start is not None for s in segments),
                 written_log=WrittenLog(
                     log_file.header.key, LogState(context, {
                         s.entry: (s.start, s.print) for s in segments}),
                     {e.key: e.signature for e in entries}) if logged and log_file else None,
                 unchanged=kept, deleted=tuple(deleted),
                 stamps=_new_stamps(unchanged, options), problems=problems,
                 scan=VaultScan(str(root), files, scanned.walk_problems, names))


def _log_segments(log_file: VaultFile, entries: list[LogEntry], entry_index: EntryIndex,
                  options: LoadOptions, changed_names: set[str]
                  ) -> tuple[tuple[LogSegment, ...], str]:
    """The log's segments and context print; unchanged segments marked (`old_start`) when the
    graph's log is complete and was written from the same context."""
    _, front = log_file.content
    segments = segment_prints(entries, front.lines, front.body_start)
    context = context_print(_page(log_file), entry_index)
    prev = options.previous.get(log_file.header.key)
    if options.log_history is None or options.force or prev is None or not prev.content_hash:
        return segments, context
    state = options.log_history.log_state(log_file.header.key)
    return reusable(segments, context, state, front.lines, changed_names), context


def _names_state(files: list[VaultFile]) -> NameState:
    """Keys (set on the files), duplicate names, the name index and the log page, from every
    file's header."""
    found = _duplicate_names(_assign_keys(files))
    pages = [f for f in files if not f.rel.endswith(".json")]
    index, candidates = _name_index(tuple(f.header for f in pages))
    log = _find_log(pages)
    return NameState(tuple(found), index, candidates, log.rel if log else None)


def _provenance_affected(entries: list[LogEntry], history: LogHistory,
                         files: list[VaultFile]) -> set[str]:
    """Of `files` (the pages not parsed anyway), those whose facts may now be introduced by
    another entry: those the log's new, changed and removed entries touch, those citing their
    block ids (`^id`), claim ledgers (their claims are about other pages, and entries may
    name a claim by its id), and fold pages whose range holds the day of such an entry (which
    entries a fold folds is counted among the entries of its range). On a first ingest every
    entry is new and no file is left to check: the citations of ~1,000 block ids searched in
    100k pages took half a minute."""
    gone, fresh = changed_entries(history.entry_signatures(), entries)
    if not gone and not fresh:
        return set()
    pages, blocks = history.entries_reach(gone) if gone else (set(), set())
    pages |= touched(fresh)
    pages |= {f.header.key for f in files if f.rel.endswith(".json")}
    days = {e.date for e in fresh} | {day for key in gone if (day := entry_day(key))}
    pages |= {f.header.key for f in files if f.header.kind is PageKind.FOLD
              and _folds_over(f, days)}
    blocks |= {b for e in fresh for b in e.block_ids}
    if blocks:  # rare: read every page for them
        cited = [f"^{b}" for b in blocks]
        pages |= {f.header.key for f in files
                  if (text := text_of(f)) is not None and any(c in text for c in cited)}
    return pages


def _folds_over(f: VaultFile, days: set[dt.date]) -> bool:
    """Whether the fold page `f` covers one of `days` (or does not say what it covers)."""
    problems: list[Problem] = []
    hydrate(f, problems)
    if problems:
        return True
    fold, _ = parse_fold_page(_page(f), f.content[1])
    if fold is None or fold.range_from is None or fold.range_to is None:
        return True
    return any(fold.range_from <= day <= fold.range_to for day in days)


def _parsed_chunks(plan: _Plan, options: LoadOptions, size: int,
                   then: Callable[[PageFacts], Any] | None = None
                   ) -> Generator[list[Any], None, None]:
    """The plan's pages parsed, `size` at a time, in order (or what `then` makes of each).
    Pages parse independently: large jobs run on every core, at most about two chunks ahead
    of the reader. A file's text is let go once its page is parsed."""
    todo = plan.todo
    parse = plan.parse if then is None else functools.partial(_parse_then, plan, then)
    results = ordered_imap(parse, todo, workers=options.workers, progress=options.progress,
                           ahead=size, heavy_last=plan.heavy_last, nice=PARSE_NICE)
    done = 0
    while done < len(todo):
        chunk: list[Any] = []
        with cyclic_gc_paused():
            for page_facts, found in islice(results, size):
                if then is None and page_facts.is_log:
                    page_facts = _with_log_entries(plan, page_facts)
                chunk.append(page_facts)
                plan.problems.extend(found)
                todo[done].text = todo[done].front = None
                done += 1
        if not chunk:
            return
        yield chunk


def _with_log_entries(plan: _Plan, facts: PageFacts) -> PageFacts:
    """The log page's facts with its entries, which the plan parsed (`parse` leaves them
    out: sent back from a worker, they would cost their pickling)."""
    return facts.model_copy(update={"log_entries": plan.log_entries})


def _parse_then(plan: _Plan, then: Callable[[PageFacts], Any],
                f: VaultFile) -> tuple[Any, list[Problem]]:
    """Worker side: a page parsed, then handed to `then` (the log with its entries)."""
    facts, found = plan.parse(f)
    return then(_with_log_entries(plan, facts) if facts.is_log else facts), found


def _new_stamps(unchanged: list[VaultFile], options: LoadOptions) -> tuple[PageStamp, ...]:
    """Unchanged pages read this run whose trusted stamp the graph does not have yet (touched,
    same content): recorded so the next run skips them."""
    out: list[PageStamp] = []
    for f in unchanged:
        prev = options.previous[f.header.key]
        if f.text is not None and f.trusted and (prev.mtime_ns, prev.size) != (f.mtime_ns,
                                                                                f.size):
            out.append(PageStamp(key=f.header.key, mtime_ns=f.mtime_ns, size=f.size))
    return tuple(out)


def _mention_names(candidates: NameCandidates, todo: list[VaultFile],
                   log_file: VaultFile | None = None,
                   segments: tuple[LogSegment, ...] = ()) -> list[tuple[str, str]]:
    """Every name, or for a small job only the names its pages could mention (the same
    mentions, from a far smaller matcher: see `loaders.mention_filter`). Of the log, only the
    lines to be parsed count (not those of the entries whose facts move)."""
    moved = sorted((s.start, s.end) for s in segments if s.old_start is not None)
    texts: list[str] = []
    size = 0
    for f in todo:
        if f.rel.endswith(".json"):
            continue
        if f is log_file and moved:  # the lines between moved segments (fences and code too:
            lines = f.content[1].lines  # more text only makes more names possible)
            at, more = f.content[1].body_start, []
            for first, last in moved:
                more += lines[at - 1:first - 1]
                at = last + 1
            more += lines[at - 1:]
        else:
            more = [text for _, text in body_lines(f.content[1].lines, f.content[1].body_start)]
        texts += more
        size += sum(map(len, more))
        if size > MENTION_FILTER_CHARS:
            return candidates.names
    possible = candidates.possible([unlinked(text) for text in texts])
    return candidates.names if possible is None else possible


def _fold_entries(fold: FoldPage, entries: list[LogEntry]) -> tuple[str, ...]:
    """Log entry keys a fold page covers, in child-key order. A child key
    `log-YYYYMMDD-NNN` numbers entries by position within the fold's range (oldest first)."""
    if fold.range_from is None or fold.range_to is None:
        return ()
    in_range = [e for e in entries if fold.range_from <= e.date <= fold.range_to]
    out: list[str] = []
    for child in fold.child_keys:
        match = CHILD_KEY.match(child)
        if match is None:
            continue
        position = int(match.group(2))
        if 1 <= position <= len(in_range) and \
                in_range[position - 1].date.strftime("%Y%m%d") == match.group(1):
            out.append(in_range[position - 1].key)
    return tuple(out)


def _find_log(pages: list[VaultFile]) -> VaultFile | None:
    candidates = [f for f in pages if f.header.stem.lower() == LOG_STEM]
    candidates.sort(key=lambda f: (f.rel.count("/"), f.rel))
    return candidates[0] if candidates else None


def _ledger_facts(f: VaultFile, index: NameIndex, entries: EntryIndex,
                  problems: list[Problem]) -> PageFacts:
    page = _page(f)
    try:
        claims, contradictions = parse_ledger(f.content[0], f.rel, index)
    except VaultError as exc:
        problems.append(Problem(path=f.rel, line=exc.line, skipped=True,
                                message=str(exc).split(": ", 1)[-1]))
        claims, contradictions = [], []
    return PageFacts(page=page, claims=tuple(claims_introduced(claims, entries)),
                     contradictions=tuple(contradiction_introduced(contradictions, entries)))


def _page_facts(f: VaultFile, index: NameIndex, finder: MentionFinder | None,
                entries: EntryIndex, log_entries: list[LogEntry],
                problems: list[Problem], segments: tuple[LogSegment, ...] = ()) -> PageFacts:
    """A page's facts; of the log, those of its preamble and of the entries not unchanged
    (see `loaders.log_segments`)."""
    page = _page(f)
    _, front = f.content
    front_links = pp.frontmatter_links(page, front, index)
    moved = SegmentIndex([s for s in segments if s.old_start is not None])
    body = pp.read_body(page, front, index, [(s.start, s.end) for s in moved.segments])
    if moved.segments:
        log_entries = [e for e in log_entries if moved.of(e.line) is None]
    links = front_links + [lk for line in body for lk in line.links]
    lineage = pp.frontmatter_lineage(page, front_links) + pp.body_lineage(page, body, index)
    contradictions: list[ContradictionRecord] = [
        *pp.callout_contradictions(page, body), *pp.frontmatter_contradictions(page, front_links)]
    fold = None
    if page.kind is PageKind.FOLD:
        fold, fold_problems = parse_fold_page(page, front)
        problems.extend(fold_problems)
        if fold is not None:
            fold = fold.model_copy(update={"entries": _fold_entries(fold, entries.entries)})
        contradictions += fold_corrections(page, [(b.number, b.text, b.section) for b in body])
    if log_entries:
        contradictions += _lint_corrections(page, log_entries)
    mentions, claims = pp.mentions_and_numbers(page, body, finder, index)
    if log_entries:
        claims = _log_claims(page, log_entries, body, claims)
    facts = PageFacts(
        page=page, links=tuple(links), authorships=tuple(pp.authorships(page, front_links, index)),
        relations=tuple(pp.relations(page, front_links, index)),
        lineage=tuple(lineage_introduced(lineage, entries, index)),
        claims=tuple(claims), contradictions=tuple(contradiction_introduced(contradictions,
                                                                            entries)),
        mentions=tuple(mentions), fold=fold, log_entries=tuple(log_entries), venue=page.venue)
    if segments:
        facts = facts.model_copy(update={"log_segments": segments})
    return facts


def _log_claims(page: Page, entries: list[LogEntry], body: list[pp.BodyLine],
                claims: list[ClaimRecord]) -> list[ClaimRecord]:
    """Numeric claims in the log: a line without a subject of its own is about its entry's
    summary page. Each is known since the entry whose lines hold it."""
    from loaders.numeric import numeric_claims

    by_line: dict[int, LogEntry] = {}
    for entry in entries:
        for line, _ in entry.bullet_lines():
            by_line[line] = entry
    texts = {b.number: b.text for b in body}
    starts = sorted((e.line, e.date) for e in entries)
    lines = [line for line, _ in starts]

    def known(line: int | None) -> dt.date | None:
        at = bisect_right(lines, line) - 1 if line is not None else -1
        return starts[at][1] if at >= 0 else None

    out = [c.model_copy(update={"known": known(c.line) or c.known}) for c in claims]
    seen_lines = {c.line for c in claims}
    for line_no, entry in by_line.items():
        if line_no in seen_lines:
            continue
        summary = next((t.page for t in entry.touches if t.role.value == "summary" and t.page),
                       None)
        if summary:
            out.extend(numeric_claims(page.key, line_no, texts.get(line_no, ""), [], summary,
                                      entry.date))
    return out


def _lint_corrections(page: Page, entries: list[LogEntry]) -> list[ContradictionRecord]:
    """`- Correction:` bullets of lint entries: corrections the vault made (resolved)."""
    out: list[ContradictionRecord] = []
    for entry in entries:
        for line, bullet in entry.bullet_lines():
            if bullet.label.lower() not in ("correction", "corrections", "訂正"):
                continue
            touched = tuple(dict.fromkeys(t.page for t in entry.touches
                                          if t.page and t.role.value == "updated"))
            out.append(ContradictionRecord(
                id=lint_id(entry.key, line), kind="explicit", status="resolved",
                origin="lint", summary=bullet.text[:300], page=page.key, line=line,
                subject=touched[0] if touched else None, pages=touched,
                evidence=(f"{page.key}:{line}: - {bullet.label}: {bullet.text}",),
                introduced_by=entry.key))
    return out
