"""Which numeric conflicts an edit can change, and which claims re-derive exactly those.

Claims are compared within groups: (subject, metric, unit), `loaders.numeric.group_of`.
`detect_conflicts` reports a conflict once, under the first group in sorted order whose
disagreeing statements are the same points (page, line, value). So a group's conflict depends
on its own claims and on the earlier groups with the same points, and any group with the same
points as another holds claims at all of them: it is co-stated with it. When the numeric claims
of the groups `changed` change (all groups with a claim on an edited or deleted page, before
and after), then:

- the conflicts of `changed` change, and so may those of the groups co-stated with them (one
  of them may now report, or stop reporting, a conflict that a changed group reports too);
  every other group has its own claims and the same earlier groups with its points, so its
  conflict stays;
- to re-derive the conflicts of those groups as a whole-graph derivation would, the claims of
  every group that holds claims at all points of one of their conflicts are needed too.

One hop, then, not a transitive closure over co-stated groups, which in a large vault spans
most of it. And groups, not subjects: a popular concept holds thousands of claims over a dozen
metrics and units, of which an edit reaches one or two. `tests/test_conflict_scope.py` checks
this against whole derivations."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from loaders.numeric import Group, Point, conflict_id, conflict_signatures
from loaders.records import ClaimRecord, ContradictionRecord


class ClaimSource(Protocol):
    """The numeric claims as stored now (the graph, or a list in tests)."""

    def co_stated(self, groups: set[Group]) -> set[Group]:
        """Groups with a claim of the same value on the same page line as one of these."""

    def claims_of(self, groups: set[Group]) -> list[ClaimRecord]:
        """Every numeric claim of these groups."""

    def count_of(self, groups: set[Group]) -> int:
        """How many numeric claims these groups hold (without reading them)."""

    def holders(self, signatures: list[frozenset[Point]]) -> set[Group]:
        """Groups with claims at every point of at least one of the signatures."""


@dataclass(frozen=True)
class ConflictScope:
    """Re-derive the conflicts of `groups` from `claims` and keep only theirs."""

    groups: frozenset[Group]
    claims: list[ClaimRecord]

    @cached_property
    def ids(self) -> frozenset[str]:
        """The ids the conflicts of these groups have (stored or not)."""
        return frozenset(conflict_id(g) for g in self.groups)

    def keeps(self, conflict: ContradictionRecord) -> bool:
        return conflict.id in self.ids


def conflict_scope(changed: set[Group], source: ClaimSource, limit: int,
                   written: int = 0) -> ConflictScope | None:
    """The scope for an edit whose numeric claims touch the groups `changed`; None when more
    than `limit` claims would be read (then deriving everything again is as cheap). Counted
    from the cheapest bound up: `written` (claims of `changed` the edit wrote, known without a
    query), the claims of `changed`, then those of the groups co-stated with them, each group
    once. An edit of the log writes thousands: past the bound, none is followed in Neo4j."""
    if written > limit:
        return None
    count = source.count_of(changed)
    if count > limit:
        return None
    groups = changed | source.co_stated(changed)
    if groups != changed:
        count += source.count_of(groups - changed)
        if count > limit:
            return None
    claims = source.claims_of(groups)
    context = source.holders(conflict_signatures(claims)) - groups
    if context and len(claims) + source.count_of(context) > limit:
        return None
    if context:
        claims = claims + source.claims_of(context)
    return ConflictScope(frozenset(groups), claims)
