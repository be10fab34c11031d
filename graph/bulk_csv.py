"""Rows of a graph as the CSV files `neo4j-admin database import full` reads.

One file per node labels (or relationship type and ends) and per set of typed properties, so
that every row fills every column: an empty CSV field is no property at all, where the writer
may store an empty string. What CSV cannot say (an empty list, a list of one empty string)
is written as a sentinel, to be set right once the database is up.

The files are written so that the tool can read them on every core. Bodies span lines, and
with `--multiline-fields=true` the tool reads every file on one thread; its parallel reader
(`--multiline-fields-format=v2`, given the files that hold a line break) finds where a
buffer's last row starts by reading back from the buffer's end (`MultiLineChunker`), a
guess that holds when no value holds the quote character or ends in a backslash (either
looks like a cell's end) and every row starts with an unquoted cell (a quote after a line
break looks like a row's start). So the quote character is U+001D, which texts do not hold,
each row starts with an ignored, unquoted `0`, and each file records whether it holds a line
break and whether a value breaks that guess: one that does sends the whole import to the
one-thread reader (`ImportFiles.parallel`)."""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, TextIO

from graph.errors import GraphError

ARRAY_DELIMITER = "\x1f"  # unit separator: no vault text has it (checked per value)
# Lists CSV cannot hold are written as these one-item lists (record separators, which no list
# item may hold), and set right once the store is up (`graph.bulk_import`).
EMPTY_LIST = "\x1e"
ONE_EMPTY_STRING = "\x1e\x1e"
SENTINELS: dict[str, list[str]] = {EMPTY_LIST: [], ONE_EMPTY_STRING: [""]}
QUOTE = "\x1d"  # group separator: the quote character (see the module's docstring)
# The characters these files use, as neo4j-admin's options name them.
CHARACTER_OPTIONS = tuple(f"--{option}=U+{ord(char):04X}" for option, char in (
    ("quote", QUOTE), ("array-delimiter", ARRAY_DELIMITER)))
LEAD = ":IGNORE"  # the first column: an unquoted 0 that starts every row
LEAD_CELL = 0
READ_BUFFER_MIN = 4 * 1024 * 1024  # neo4j-admin's default; it must hold the largest value
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_INT64 = (-(2 ** 63), 2 ** 63 - 1)


@dataclass(frozen=True)
class IdSpace:
    """Nodes found by one property (a `MERGE` key): the import's id group."""

    label: str
    prop: str


PAGE = IdSpace("Page", "key")
ENTRY = IdSpace("LogEntry", "key")
CLAIM = IdSpace("Claim", "id")
DANGLING = IdSpace("Dangling", "name")
ATTACHMENT = IdSpace("Attachment", "name")
VENUE = IdSpace("Venue", "name")

_Node = tuple[IdSpace, str]
_Signature = tuple[tuple[str, str], ...]  # (property, import type) per column


@dataclass
class _File:
    path: Path
    handle: TextIO
    writer: Any  # csv writer
    rows: int = 0
    multiline: bool = False  # a value holds a line break
    misleading: bool = False  # a value holds the quote character or ends in a backslash


@dataclass(frozen=True)
class ImportFiles:
    """What `neo4j-admin database import full` is given: node and relationship files with the
    labels or type each holds, and the options their contents need."""

    # (labels joined by ':', files) and (type, files): the files of one header, which the tool
    # reads as one input (it samples, opens and closes each input at a fixed cost)
    nodes: tuple[tuple[str, tuple[Path, ...]], ...]
    list_columns: tuple[tuple[str, str], ...]  # (labels, property) of node files' lists
    relationships: tuple[tuple[str, tuple[Path, ...]], ...]
    multiline: tuple[Path, ...]  # the files holding a value with a line break
    parallel: bool  # whether the tool may read them on every core (see the module docstring)
    read_buffer: int  # bytes; at least twice the largest value
    node_count: int
    relationship_count: int


class CsvFiles:
    """The files one process writes, `prefix` in their names: a file per shape of row (what
    it is, its labels or type, its typed columns). Rows of one shape (names and value types)
    share a plan, so most are encoded without looking at each value's type again."""

    def __init__(self, folder: Path, prefix: str) -> None:
        self.folder = folder
        self.prefix = prefix
        self.longest = 0
        self._files: list[_File] = []
        self._by_shape: dict[tuple[str, str, _Signature], int] = {}
        self._plans: dict[tuple[Any, ...], tuple[int, tuple[tuple[int, Any], ...]]] = {}
        self._new: list[tuple[str, str, str]] = []  # (path, what, name) since `take_new`
        self._flagged: set[int] = set()  # files whose flags changed since `take_flags`
        self._dirty: set[int] = set()

    def row(self, what: str, name: str, lead: _Signature, lead_cells: list[str],
            props: dict[str, Any]) -> tuple[str, int]:
        """Write a row: (its file, its index in the file)."""
        values = tuple(props.values())
        shape = (what, name, lead, tuple(props), tuple(map(type, values)))
        plan = self._plans.get(shape)
        if plan is not None:
            index, picks = plan
            try:
                cells = [v if encode is None else encode(v)
                         for i, encode in picks for v in (values[i],)]
            except _NotThisShape:
                pass
            else:
                if cells:
                    longest = max(map(len, cells))
                    if longest > self.longest:
                        self.longest = longest
                return self._write(index, [*lead_cells, *cells])
        cells, signature = self._cells(what, props)
        index = self._file(what, name, (*lead, *signature))
        if plan is None:
            kinds = dict(signature)
            self._plans[shape] = (index, tuple(
                (i, _ENCODERS[kinds[key]]) for i, key in enumerate(props)
                if values[i] is not None))
        return self._write(index, [*lead_cells, *cells])

    def take_new(self) -> list[tuple[str, str, str]]:
        """The files made since the last call: (path, "node" or "rel", labels or type)."""
        new, self._new = self._new, []
        return new

    def take_flags(self) -> tuple[list[str], list[str]]:
        """The files found since the last call to hold a line break, and to hold a value that
        breaks the tool's parallel reader."""
        flagged = [self._files[index] for index in sorted(self._flagged)]
        self._flagged.clear()
        return ([str(f.path) for f in flagged if f.multiline],
                [str(f.path) for f in flagged if f.misleading])

    def flush(self) -> None:
        """Out to the files: a worker process ends without flushing what it buffered."""
        for index in self._dirty:
            self._files[index].handle.flush()
        self._dirty.clear()

    def close(self) -> None:
        for f in self._files:
            f.handle.close()

    def _cells(self, what: str, props: dict[str, Any]) -> tuple[list[str], _Signature]:
        """A row's cells and columns."""
        cells: list[str] = []
        signature: list[tuple[str, str]] = []
        for name, value in props.items():
            if value is None:
                continue
            if not _NAME.match(name):
                raise GraphError(f"property name {name!r} cannot be a CSV column")
            if what == "rel" and isinstance(value, list | tuple):
                raise GraphError(f"a relationship's list ({name}) has no CSV form here")
            kind, text = _typed(value)
            if len(text) > self.longest:
                self.longest = len(text)
            cells.append(text)
            signature.append((name, kind))
        return cells, tuple(signature)

    def _file(self, what: str, name: str, columns: _Signature) -> int:
        shape = (what, name, columns)
        index = self._by_shape.get(shape)
        if index is not None:
            return index
        index = len(self._files)
        path = self.folder / f"{what}-{self.prefix}-{index:04d}.csv"
        handle = path.open("w", encoding="utf-8", newline="")
        writer = csv_writer(handle)
        writer.writerow([LEAD, *(f"{prop}:{kind}" if prop else f":{kind}"
                                 for prop, kind in columns)])
        self._files.append(_File(path, handle, writer))
        self._by_shape[shape] = index
        self._new.append((str(path), what, name))
        return index

    def _write(self, index: int, cells: list[str]) -> tuple[str, int]:
        f = self._files[index]
        text = "".join(cells)
        if not f.multiline and ("\n" in text or "\r" in text):
            f.multiline = True
            self._flagged.add(index)
        if not f.misleading and ("\\" in text or QUOTE in text) and any(
                QUOTE in cell or cell.endswith("\\") for cell in cells):
            f.misleading = True
            self._flagged.add(index)
        f.writer.writerow((LEAD_CELL, *cells))
        f.rows += 1
        self._dirty.add(index)
        return str(f.path), f.rows - 1


class _NotThisShape(Exception):
    """A list whose items' type differs from the plan's column."""


def _array_as(kind: str) -> Callable[[list[Any]], str]:
    def encode(value: list[Any]) -> str:
        typed = _array(list(value))
        if typed[0] != kind:
            raise _NotThisShape
        return typed[1]
    return encode


# How a column's values are written once a plan knows its type (None: a string, as it is).
_ENCODERS: dict[str, Callable[[Any], str] | None] = {
    "string": None, "long": lambda v: _long(v), "double": lambda v: _double(v),
    "boolean": lambda v: _bool(v), "date": lambda v: v.isoformat(),
    **{kind: _array_as(kind) for kind in ("string[]", "long[]", "double[]", "boolean[]")},
}


def _typed(value: Any) -> tuple[str, str]:
    """(import type, CSV text) of a property value as the driver would store it."""
    if isinstance(value, bool):
        return "boolean", _bool(value)
    if isinstance(value, int):
        return "long", _long(value)
    if isinstance(value, float):
        return "double", _double(value)
    if isinstance(value, str):
        return "string", value
    if isinstance(value, datetime):
        raise GraphError(f"a datetime property ({value!r}) has no CSV form here")
    if isinstance(value, date):
        return "date", value.isoformat()
    if isinstance(value, list | tuple):
        return _array(list(value))
    raise GraphError(f"a property of type {type(value).__name__} has no CSV form")


def _array(values: list[Any]) -> tuple[str, str]:
    if not values:
        return "string[]", EMPTY_LIST
    kinds = {type(v) for v in values}
    if kinds == {str}:
        if values == [""]:
            return "string[]", ONE_EMPTY_STRING
        for v in values:
            if ARRAY_DELIMITER in v or EMPTY_LIST in v:
                raise GraphError("a list property holds the character U+001E or U+001F, "
                                 "which the offline import uses in lists")
        return "string[]", ARRAY_DELIMITER.join(values)
    if kinds == {bool}:
        return "boolean[]", ARRAY_DELIMITER.join(map(_bool, values))
    if kinds == {int}:
        return "long[]", ARRAY_DELIMITER.join(_long(v) for v in values)
    if kinds == {float}:
        return "double[]", ARRAY_DELIMITER.join(_double(v) for v in values)
    raise GraphError(f"a list property mixes {sorted(k.__name__ for k in kinds)}")


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _long(value: int) -> str:
    if not _INT64[0] <= value <= _INT64[1]:
        raise GraphError(f"the integer {value} does not fit in 64 bits")
    return str(value)


def _double(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def drop_rows(path: Path, rows: set[int], longest: int) -> None:
    """Rewrite a CSV file without these data rows (0 = the first after the header)."""
    csv.field_size_limit(max(csv.field_size_limit(), longest + 1))
    kept = path.with_suffix(".kept")
    with path.open(encoding="utf-8", newline="") as src, \
            kept.open("w", encoding="utf-8", newline="") as dst:
        reader = csv_reader(src)
        writer = csv_writer(dst)
        writer.writerow(next(reader))
        for i, row in enumerate(reader):
            if i not in rows:
                writer.writerow((LEAD_CELL, *row[1:]))
    kept.replace(path)


def csv_writer(handle: TextIO) -> Any:
    """Rows as the tool is told to read them: every string quoted with `QUOTE`, the leading 0
    (an int) not."""
    return csv.writer(handle, quotechar=QUOTE, quoting=csv.QUOTE_NONNUMERIC,
                      lineterminator="\n")


def csv_reader(handle: TextIO) -> Any:
    """Rows of a file `csv_writer` wrote, as strings (the leading column too)."""
    return csv.reader(handle, quotechar=QUOTE)


def read_header(path: Path) -> tuple[str, ...]:
    """A CSV file's header: its columns as `name:type`, the ignored lead left out."""
    with path.open(encoding="utf-8", newline="") as f:
        return tuple(next(csv_reader(f)))[1:]


def list_columns(header: tuple[str, ...]) -> list[str]:
    """The string-list columns of a header."""
    return [column.split(":", 1)[0] for column in header if column.endswith(":string[]")]
