"""What the offline import's rows add up to, kept in the importing process while workers
write the rows (`graph.bulk_sink`): the semantics of the writer's `MERGE`s on an empty
database, across every worker's files.

- A node merged by its id again is its last row (`MERGE ... SET n = props`): earlier rows of
  it are dropped from their files when the files are closed.
- A node made by its id alone (a page before its chunk, a dangling link's name) is written
  once, unless a row for it came.
- A claim's links to its page and subject are merged: a claim id stated again gets no second
  link to the same page.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graph.bulk_csv import (
    READ_BUFFER_MIN,
    CsvFiles,
    IdSpace,
    ImportFiles,
    drop_rows,
    list_columns,
    read_header,
)

_At = tuple[str, int]  # (file, row)


@dataclass
class PageRows:
    """What a worker wrote for one page, as the importing process needs to know it."""

    events: list[tuple[Any, ...]]  # see `BulkIndex.take`
    files: list[tuple[str, str, str]]  # files it made: (path, "node" or "rel", labels or type)
    longest: int  # its longest value so far
    relationships: int
    later: Any  # the writer's `_Deferred` for the page
    # files found to hold a line break, and a value the tool's parallel reader would misread
    multiline: list[str]
    misleading: list[str]


def page_rows(files: CsvFiles, events: list[tuple[Any, ...]], relationships: int,
              later: Any) -> PageRows:
    """What a process wrote to `files` since it last reported, for the importing process."""
    multiline, misleading = files.take_flags()
    return PageRows(events=events, files=files.take_new(), longest=files.longest,
                    relationships=relationships, later=later, multiline=multiline,
                    misleading=misleading)


@dataclass
class BulkIndex:
    """Nodes by id, and what to drop or set afterwards."""

    ids: dict[IdSpace, dict[str, _At | None]] = field(default_factory=lambda: defaultdict(dict))
    files: dict[str, tuple[str, str]] = field(default_factory=dict)  # path -> (what, name)
    relationships: int = 0
    longest: int = 0
    multiline: set[str] = field(default_factory=set)
    misleading: set[str] = field(default_factory=set)
    _superseded: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    _claim_links: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)

    def has(self, space: IdSpace, ident: str) -> bool:
        return ident in self.ids[space]

    def merge(self, space: IdSpace, ident: str) -> None:
        """A node by its id alone, unless it exists (`MERGE (n:Label {prop: id})`)."""
        self.ids[space].setdefault(ident, None)

    def take(self, rows: PageRows) -> None:
        """A page's rows, in page order. Events: ("merge", space, id), ("node", space, id,
        file, row), ("link", claim id, type, target, file, row)."""
        for path, what, name in rows.files:
            self.files[path] = (what, name)
        self.longest = max(self.longest, rows.longest)
        self.relationships += rows.relationships
        self.multiline.update(rows.multiline)
        self.misleading.update(rows.misleading)
        for event in rows.events:
            if event[0] == "node":
                self._node(*event[1:])
            elif event[0] == "merge":
                self.merge(event[1], event[2])
            else:
                self._link(*event[1:])

    def _node(self, space: IdSpace, ident: str, path: str, row: int) -> None:
        ids = self.ids[space]
        before = ids.get(ident)
        if before is not None:
            self._superseded[before[0]].add(before[1])
        ids[ident] = (path, row)

    def _link(self, claim: str, rel_type: str, target: str, path: str, row: int) -> None:
        links = self._claim_links.get(claim, ())
        if (rel_type, target) in links:
            self._superseded[path].add(row)
            self.relationships -= 1
        else:
            self._claim_links[claim] = (*links, (rel_type, target))

    def close(self, own: CsvFiles) -> ImportFiles:
        """Write the nodes known by id alone (with `own`), drop superseded rows: the files to
        import. Every worker's files must be complete."""
        for space, ids in self.ids.items():
            for ident in [ident for ident, at in ids.items() if at is None]:
                own.row("node", space.label, ((space.prop, f"ID({space.label})"),), [ident], {})
        own.close()
        self.take(page_rows(own, [], 0, None))
        longest = self.longest
        for path, rows in self._superseded.items():
            drop_rows(Path(path), rows, longest)
        groups: dict[tuple[str, str, tuple[str, ...]], list[Path]] = defaultdict(list)
        for path, (what, name) in self.files.items():
            groups[(what, name, read_header(Path(path)))].append(Path(path))
        lists = {(name, column) for what, name, header in groups if what == "node"
                 for column in list_columns(header)}
        return ImportFiles(
            list_columns=tuple(sorted(lists)),
            nodes=tuple((name, tuple(paths)) for (what, name, _), paths in groups.items()
                        if what == "node"),
            relationships=tuple((name, tuple(paths)) for (what, name, _), paths in groups.items()
                                if what == "rel"),
            multiline=tuple(Path(path) for path in sorted(self.multiline)),
            parallel=not self.multiline & self.misleading,
            read_buffer=max(READ_BUFFER_MIN, 2 * longest + 1024),
            node_count=sum(len(ids) for ids in self.ids.values()),
            relationship_count=self.relationships)
