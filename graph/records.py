"""Records as plain dicts, as `neo4j.Record.data()` makes them, for less CPU.

`data()` sends every value through the driver's exporter, whose `isinstance` checks against
`Sequence`, `Set` and `Mapping` (abstract classes: slow checks) run for every string, number
and date of a result: on lineage paths at 10k that was 40% of the client's CPU per request.
Here the values queries return nearly always (scalars, temporal values, lists and maps) are
told apart by their exact type; a record holding anything else (a node, relationship, path,
point, a subclass) is left to `data()` whole, so the output is always `data()`'s."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import neo4j
from neo4j.time import Date, DateTime, Duration, Time

_AS_IS: frozenset[type] = frozenset({str, int, float, bool, type(None), Date, DateTime, Time,
                                     Duration})


def _is_plain(value: Any) -> bool:
    """Whether `data()` would hand `value` back unchanged (equal, of the same types): only
    scalars and temporal values, in lists and maps of their own. Checked, not copied: a
    record's values are its own, freshly decoded."""
    kind = type(value)
    if kind is list:
        for item in value:  # noqa: SIM110 (a loop: all() over a generator costs more)
            if type(item) not in _AS_IS and not _is_plain(item):
                return False
        return True
    if kind is dict:
        for item in value.values():
            if type(item) not in _AS_IS and not _is_plain(item):
                return False
        return True
    return kind in _AS_IS


def value_rows(keys: Sequence[str], records: Iterable[neo4j.Record]) -> list[dict[str, Any]]:
    """Records as dicts, their values as they come: for queries that return only values, lists
    and maps. `dict(record)` would look each key up again (`Record.__getitem__`, `index`):
    a tenth of a fold's client CPU."""
    return [dict(zip(keys, record, strict=True)) for record in records]


def data_rows(keys: Sequence[str], records: Iterable[neo4j.Record]) -> list[dict[str, Any]]:
    """`[record.data() for record in records]`: the same dicts, for a fraction of the CPU
    when the values are plain (any query's rows)."""
    rows = []
    for record in records:
        row = dict(zip(keys, record, strict=True))  # a value the driver could not decode raises
        rows.append(row if _is_plain(row) else record.data())
    return rows
