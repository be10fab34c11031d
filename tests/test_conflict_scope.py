"""The conflicts a one-hop scope of groups (subject, metric, unit) re-derives equal a whole
derivation, and nothing outside the scope changes: random vaults of co-stated figures, random
edits and deletions."""

from __future__ import annotations

import random
from collections.abc import Iterable

from graph.conflict_scope import ConflictScope, conflict_scope
from loaders.numeric import Group, Point, conflict_group, conflict_id, detect_conflicts, group_of
from loaders.records import ClaimRecord, ContradictionRecord

SUBJECTS = [f"s{i}" for i in range(8)]
PAGES = [f"p{i}" for i in range(6)]


class ClaimList:
    """What the graph's queries answer, over claims in memory."""

    def __init__(self, claims: Iterable[ClaimRecord]) -> None:
        self.claims = list(claims)

    def co_stated(self, groups: set[Group]) -> set[Group]:
        points = {(c.page, c.line, c.value) for c in self.claims if group_of(c) in groups}
        return {g for c in self.claims
                if (g := group_of(c)) is not None and (c.page, c.line, c.value) in points}

    def claims_of(self, groups: set[Group]) -> list[ClaimRecord]:
        return [c for c in self.claims if group_of(c) in groups]

    def count_of(self, groups: set[Group]) -> int:
        return len(self.claims_of(groups))

    def holders(self, signatures: list[frozenset[Point]]) -> set[Group]:
        at: dict[Group, set[Point]] = {}
        for c in self.claims:
            if (g := group_of(c)) is not None:
                at.setdefault(g, set()).add((c.page, c.line, c.value))
        return {g for g, points in at.items() if any(sig <= points for sig in signatures)}


def page_claims(rng: random.Random, page: str) -> list[ClaimRecord]:
    """A few lines, each stating one figure about one to three subjects."""
    out = []
    for line in range(1, rng.randint(1, 4) + 1):
        value = float(rng.choice([1, 2, 3]))
        metric = rng.choice(["ttft", "ttft", "throughput"])
        unit = rng.choice(["times", "times", "percent"])
        quals = rng.choice([(), (), ("H100",)])
        for subject in rng.sample(SUBJECTS, rng.randint(1, 3)):
            out.append(ClaimRecord(
                id=f"num:{page}:{line}:{subject}:{metric}:{value:g}", text=f"{value}x",
                origin="numeric", page=page, line=line, subject=subject, metric=metric,
                value=value, unit=unit, qualifiers=quals))
    return out


def vault(rng: random.Random) -> dict[str, list[ClaimRecord]]:
    return {page: page_claims(rng, page) for page in PAGES if rng.random() < 0.9}


def flat(pages: dict[str, list[ClaimRecord]]) -> list[ClaimRecord]:
    return [c for claims in pages.values() for c in claims]


def outside(found: list[ContradictionRecord], scope: ConflictScope) -> list[ContradictionRecord]:
    return [c for c in found if not scope.keeps(c)]


def groups_on(claims: list[ClaimRecord]) -> set[Group]:
    return {g for c in claims if (g := group_of(c)) is not None}


def edits(seed: int) -> Iterable[tuple[list[ClaimRecord], list[ClaimRecord], set[Group]]]:
    """(claims before, claims after, groups with a claim on the edited page)."""
    rng = random.Random(seed)
    for _ in range(1500):
        before = vault(rng)
        after = dict(before)
        page = rng.choice(PAGES)
        if rng.random() < 0.2:
            after.pop(page, None)
        else:
            after[page] = page_claims(rng, page)
        changed = groups_on(before.get(page, []) + after.get(page, []))
        yield flat(before), flat(after), changed


def test_the_scope_re_derives_what_a_whole_derivation_would() -> None:
    checked = 0
    for before, after, changed in edits(seed=11):
        scope = conflict_scope(changed, ClaimList(after), limit=len(after))
        assert scope is not None and changed <= scope.groups
        whole_before, whole_after = detect_conflicts(before), detect_conflicts(after)
        local = [c for c in detect_conflicts(scope.claims) if scope.keeps(c)]
        assert local == [c for c in whole_after if scope.keeps(c)]
        assert outside(whole_after, scope) == outside(whole_before, scope)
        checked += bool(local)
    assert checked > 300  # most cases had conflicts to compare


def test_the_changed_groups_alone_would_not_be_enough() -> None:
    """Without the co-stated hop, some edits leave another group's conflict stale: the test
    above would catch that."""
    stale = 0
    for before, after, changed in edits(seed=11):
        narrow = ConflictScope(frozenset(changed), ClaimList(after).claims_of(changed))
        stale += outside(detect_conflicts(after), narrow) != outside(
            detect_conflicts(before), narrow)
    assert stale > 0


def test_one_hop_not_the_closure() -> None:
    """A chain of co-stated groups: an edit about s0 reaches s1 (co-stated with s0), not the
    rest of the chain."""
    chain = [claim("a", "s0", 2), claim("a", "s1", 2), claim("b", "s1", 3),
             claim("b", "s2", 3), claim("c", "s2", 4), claim("c", "s3", 4),
             claim("edited", "s0", 5)]
    scope = conflict_scope({ttft("s0")}, ClaimList(chain), limit=4)
    assert scope is not None and scope.groups == {ttft("s0"), ttft("s1")}
    assert len(scope.claims) == 4  # s0's two, s1's two
    assert conflict_scope({ttft("s0")}, ClaimList(chain), limit=3) is None  # bounded by claims


def test_too_many_changed_claims_are_not_followed_to_their_co_stated_groups() -> None:
    class NoCoStated(ClaimList):
        def co_stated(self, groups: set[Group]) -> set[Group]:
            raise AssertionError("co-stated groups looked up for an edit over the bound")

    chain = [claim("a", "s0", 2), claim("a", "s1", 2), claim("edited", "s0", 5)]
    assert conflict_scope({ttft("s0")}, NoCoStated(chain), limit=1) is None

    class NoQueries(NoCoStated):
        def count_of(self, groups: set[Group]) -> int:
            raise AssertionError("counted in the graph though the edit wrote more")

    assert conflict_scope({ttft("s0")}, NoQueries(chain), limit=1, written=2) is None


def test_a_subjects_other_metrics_stay_out_of_the_scope() -> None:
    """A popular subject holds claims about many metrics; an edit about one of them reads that
    group's claims, and the groups at its points, not the subject's every claim."""
    hub = [claim(f"p{i}", "hub", i + k / 10, metric=m) for i in range(1, 6)
           for k, m in enumerate(("ttft", "memory", "throughput"))]
    other = [claim("p1", "s1", 1.0), claim("p9", "s1", 7.0)]  # co-stated with hub's ttft at p1
    scope = conflict_scope({ttft("hub")}, ClaimList(hub + other), limit=10**6)
    assert scope is not None and scope.groups == {ttft("hub"), ttft("s1")}
    assert sorted(c.id for c in scope.claims) == sorted(
        c.id for c in hub + other if c.metric == "ttft")


def test_a_conflict_id_names_its_group() -> None:
    for group in [("Mooncake", "ttft", "times"), ("a:b: c", "memory", "percent")]:
        assert conflict_group(conflict_id(group)) == group
    assert conflict_group("lint:log-1:3") is None


def claim(page: str, subject: str, value: float, metric: str = "ttft") -> ClaimRecord:
    return ClaimRecord(id=f"num:{page}:1:{subject}:{metric}:{value:g}", text="x",
                       origin="numeric", page=page, line=1, subject=subject,
                       metric=metric, value=value, unit="times")


def ttft(subject: str) -> Group:
    return subject, "ttft", "times"
