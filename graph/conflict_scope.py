"""Which numeric conflicts an edit can change, and which claims re-derive exactly those.

`detect_conflicts` reports a conflict once, under the first (subject, metric, unit) group in
sorted order whose disagreeing statements are the same points (page, line, value). So a
group's conflict depends on its own claims and on the earlier groups with the same points,
and any group with the same points as another holds claims at all of them: it is co-stated
with it. When the numeric claims of the subjects `changed` change (all subjects with a claim
on an edited or deleted page, before and after), then:

- the groups of `changed` change, and so may the groups co-stated with them (one of them may
  now report, or stop reporting, a conflict that a changed group reports too); every other
  group has its own claims and the same earlier groups with its points, so its conflict stays;
- to re-derive the groups of those subjects as a whole-graph derivation would, the claims of
  every subject that holds claims at all points of one of their conflicts are needed too.

One hop, then, not a transitive closure over co-stated subjects, which in a large vault spans
most of it. `tests/test_conflict_scope.py` checks this against whole derivations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from loaders.numeric import Point, conflict_signatures
from loaders.records import ClaimRecord


class ClaimSource(Protocol):
    """The numeric claims as stored now (the graph, or a list in tests)."""

    def co_stated(self, subjects: set[str]) -> set[str]:
        """Subjects with a claim of the same value on the same page line as one of these."""

    def claims_of(self, subjects: set[str]) -> list[ClaimRecord]:
        """Every numeric claim about these subjects."""

    def count_of(self, subjects: set[str]) -> int:
        """How many numeric claims are about these subjects (without reading them)."""

    def holders(self, signatures: list[frozenset[Point]]) -> set[str]:
        """Subjects with claims at every point of at least one of the signatures."""


@dataclass(frozen=True)
class ConflictScope:
    """Re-derive the conflicts of `subjects` from `claims` and keep only theirs."""

    subjects: frozenset[str]
    claims: list[ClaimRecord]

    def keeps(self, subject: str | None) -> bool:
        return subject in self.subjects


def conflict_scope(changed: set[str], source: ClaimSource, limit: int) -> ConflictScope | None:
    """The scope for an edit whose numeric claims touch `changed`; None when more than
    `limit` claims would be read (then deriving everything again is as cheap). Claims, not
    subjects: a popular concept is co-stated with hundreds of subjects that each hold a few
    claims, and reading those is still far cheaper than reading every claim."""
    subjects = changed | source.co_stated(changed)
    if source.count_of(subjects) > limit:
        return None
    claims = source.claims_of(subjects)
    context = source.holders(conflict_signatures(claims)) - subjects
    if context and len(claims) + source.count_of(context) > limit:
        return None
    if context:
        claims = claims + source.claims_of(context)
    return ConflictScope(frozenset(subjects), claims)

