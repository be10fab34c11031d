"""Query field for contradictions, with claims, values, evidence and how each was found."""

from __future__ import annotations

from collections.abc import Iterable

import strawberry
from strawberry.types.nodes import FragmentSpread, InlineFragment, SelectedField, Selection

from api.connections import Connection, connection
from api.decorators import read_field
from api.types import Contradiction, ContradictionKind, ContradictionStatus, Ctx, contradiction
from queries import contradictions as contradiction_queries
from queries.paging import DEFAULT_FIRST


@strawberry.type
class ContradictionQueries:
    @read_field(description="Contradictions, explicit and detected; `subject` is a page key, "
                            "title or alias.")
    async def contradictions(self, info: Ctx, subject: str | None = None,
                             status: ContradictionStatus | None = None,
                             kind: ContradictionKind | None = None,
                             first: int = DEFAULT_FIRST,
                             after: str | None = None) -> Connection[Contradiction]:
        # Claims come through a DataLoader, and only when the query asks for them; evidence
        # lines and page keys only as many as it shows.
        found = await info.context.run(
            contradiction_queries.contradictions, subject, status.value if status else None,
            kind.value if kind else None, first, after, False,
            items_shown(info.selected_fields, EVIDENCE_FIELDS),
            items_shown(info.selected_fields, PAGE_FIELDS))
        info.context.spend(len(found.items))
        return connection([contradiction(x) for x in found.items], found.cursors,
                          found.has_next, after)


EVIDENCE_FIELDS = frozenset({"evidence"})
PAGE_FIELDS = frozenset({"pageKeys", "pages"})


def items_shown(fields: list[Selection], names: frozenset[str]) -> int | None:
    """How many items of a list a connection query shows per contradiction, through the fields
    `names` (`evidence`; `pageKeys` and `pages`): the largest `first:` it gives them; None
    (all) when one asks without `first`; 0 when none asks (the counts need no items)."""
    wanted: list[int | None] = [
        _int(f.arguments.get("first")) for node in _nodes(fields)
        for f in _fields(node.selections) if f.name in names]
    if not wanted:
        return 0
    if any(n is None or n < 0 for n in wanted):
        return None  # all (a negative `first` is reported by the field itself)
    return max(n for n in wanted if n is not None)


def _nodes(fields: list[Selection]) -> Iterable[SelectedField]:
    """The selections of the connection's nodes: `nodes { ... }` and `edges { node { ... } }`."""
    for top in _fields(fields):
        for f in _fields(top.selections):
            if f.name == "nodes":
                yield f
            elif f.name == "edges":
                yield from (n for n in _fields(f.selections) if n.name == "node")


def _fields(selections: list[Selection]) -> Iterable[SelectedField]:
    """Fields of a selection set, fragments flattened."""
    for s in selections:
        if isinstance(s, SelectedField):
            yield s
        elif isinstance(s, FragmentSpread | InlineFragment):
            yield from _fields(s.selections)


def _int(value: object) -> int | None:
    """An Int argument as strawberry gives it: a literal's text, or a variable's value."""
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return None
