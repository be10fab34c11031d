"""The plan of a synthetic vault: which pages exist, their names, authors, concepts, lineage,
and the log's entries with their dates. Pure data from one `random.Random(seed)` (never a set
iterated, never the clock), so the same seed always plans the same vault."""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from random import Random

from benchmarks import vocab as v

START = dt.date(2022, 1, 3)


@dataclass(frozen=True)
class Counts:
    """How many pages of each kind a vault of `total` pages has."""

    papers: int
    persons: int
    orgs: int
    products: int
    concepts: int
    folds: int
    meta: int = 4

    @property
    def total(self) -> int:
        return (self.papers + self.persons + self.orgs + self.products + self.concepts
                + self.folds + self.meta)


def counts_for(pages: int) -> Counts:
    """Roughly the example vault's mix, with organizations capped at a few hundred."""
    if pages < 100:
        raise ValueError("a synthetic vault needs at least 100 pages")
    folds = max(1, pages // 1000)
    orgs = min(400, max(20, pages // 40))
    concepts = max(20, pages * 8 // 100)
    products = max(10, pages * 5 // 100)
    persons = pages * 33 // 100
    papers = pages - 4 - folds - orgs - concepts - products - persons
    return Counts(papers, persons, orgs, products, concepts, folds)


@dataclass
class Paper:
    index: int
    year: int
    venue: str
    system: str
    title: str
    lang: str
    authors: list[int]
    concepts: list[int]
    parents: list[tuple[int, str]]  # (paper index, mechanism)
    stem: str = ""
    alias: str = ""
    callout: int | None = None  # index of the lint entry that corrected it
    figure: bool = False
    dangling: bool = False


@dataclass
class Entry:
    """One log entry; `ref` is (kind, index) of the page it records, or a lint/fold entry."""

    op: str
    ref: tuple[str, int]
    date: dt.date = START
    block: str | None = None
    updates: list[str] = field(default_factory=list)


class _Namer:
    """Unique page names across the whole vault (compared case-folded)."""

    def __init__(self, rng: Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def unique(self, make: Callable[[], str]) -> str:
        for _ in range(40):
            name = make()
            if name.casefold() not in self.used:
                self.used.add(name.casefold())
                return name
        base = make()
        n = 2
        while f"{base} {n}".casefold() in self.used:
            n += 1
        self.used.add(f"{base} {n}".casefold())
        return f"{base} {n}"


class _Zipf:
    """Sample indices 0..n-1 with weight 1/(rank+1)^s (rank = index): popular ones first."""

    def __init__(self, n: int, s: float = 1.1) -> None:
        total = 0.0
        self.cum: list[float] = []
        for rank in range(n):
            total += 1.0 / (rank + 1) ** s
            self.cum.append(total)

    def __call__(self, rng: Random) -> int:
        return min(bisect.bisect_left(self.cum, rng.random() * self.cum[-1]), len(self.cum) - 1)


def pick(rng: Random, sample: Callable[[Random], int], k: int) -> list[int]:
    out: list[int] = []
    for _ in range(k * 4):
        i = sample(rng)
        if i not in out:
            out.append(i)
        if len(out) == k:
            break
    return out


class VaultPlan:
    """Plans every page and log entry first, then renders them to text."""

    def __init__(self, pages: int, seed: int) -> None:
        self.rng = Random(seed)
        self.counts = counts_for(pages)
        self.namer = _Namer(self.rng)
        c = self.counts
        self.orgs = [self.namer.unique(self._org_name) for _ in range(c.orgs)]
        self.concepts = [self.namer.unique(self._concept_name) for _ in range(c.concepts)]
        self.persons = [self.namer.unique(self._person_name) for _ in range(c.persons)]
        self.concept_pick = _Zipf(c.concepts)
        self.org_pick = _Zipf(c.orgs, 0.9)
        self.person_pick = _Zipf(c.persons, 0.7)
        self.affiliation = [self.org_pick(self.rng) if self.rng.random() > 0.08 else -1
                            for _ in range(c.persons)]
        self.part_of = [self.rng.randrange(i) if i > 3 and self.rng.random() < 0.25 else -1
                        for i in range(c.orgs)]
        self.papers = [self._paper(i) for i in range(c.papers)]
        self.products = self._products()
        self.product_dev = [self._developer() for _ in range(c.products)]
        self.person_papers: list[list[int]] = [[] for _ in range(c.persons)]
        self.concept_papers: list[list[int]] = [[] for _ in range(c.concepts)]
        for paper in self.papers:
            for a in paper.authors:
                self.person_papers[a].append(paper.index)
            for k in paper.concepts:
                self.concept_papers[k].append(paper.index)
        self.entries = self._timeline()
        self.folds = self._folds()
        self.created: dict[tuple[str, int], dt.date] = {e.ref: e.date for e in self.entries}

    # -- names -----------------------------------------------------------------------------

    def _org_name(self) -> str:
        if self.rng.random() < 0.3:
            return self.rng.choice(v.JA_ORG_PATTERNS).format(p=self.rng.choice(v.JA_PLACES))
        return self.rng.choice(v.ORG_PATTERNS).format(p=self.rng.choice(v.PLACES))

    def _concept_name(self) -> str:
        if self.rng.random() < 0.45:
            return self.rng.choice(v.JA_ADJ) + self.rng.choice(v.JA_NOUN)
        return f"{self.rng.choice(v.ADJ)} {self.rng.choice(v.NOUN)}"

    def _person_name(self) -> str:
        r = self.rng.random()
        if r < 0.2:
            return self.rng.choice(v.JA_SURNAME) + self.rng.choice(v.JA_GIVEN)
        given, surname = self.rng.choice(v.GIVEN), self.rng.choice(v.SURNAME)
        if r < 0.55:
            return f"{given} {surname}"
        return f"{given} {chr(65 + self.rng.randrange(26))}. {surname}"

    def _system_name(self) -> str:
        syllables = self.rng.choice((2, 2, 3, 3, 3))
        word = "".join(self.rng.choice(v.CONSONANTS) + self.rng.choice(v.VOWELS)
                       for _ in range(syllables))
        return word.capitalize() + self.rng.choice(v.SYSTEM_SUFFIX)

    # -- plan ------------------------------------------------------------------------------

    def _paper(self, i: int) -> Paper:
        rng = self.rng
        n = self.counts.papers
        year = 2012 + (14 * i) // n
        system = self.namer.unique(self._system_name)
        title = (f"{system} - {rng.choice(v.TITLE_VERB)} {rng.choice(v.TITLE_OBJECT)} "
                 f"{rng.choice(v.TITLE_MEANS)}")
        authors = pick(rng, self.person_pick,
                        rng.choices(range(1, 13), weights=(6, 10, 14, 14, 12, 9, 6, 4, 3, 2, 2,
                                                           1))[0])
        concepts = pick(rng, self.concept_pick, rng.randint(1, 5))
        parents: list[tuple[int, str]] = []
        if i > 0:
            wanted = rng.choices((0, 1, 2, 3, 4), weights=(2, 5, 4, 2, 1))[0]
            for _ in range(wanted):
                if rng.random() < 0.6:
                    parent = rng.randrange(max(0, i - 30), i)
                else:
                    parent = int(i * rng.random() ** 2)
                if parent in (p for p, _ in parents):
                    continue
                mechanism = rng.choices(("frontmatter", "inline", "prose", "bracket", "compare"),
                                        weights=(4, 3, 3, 1, 1))[0]
                parents.append((parent, mechanism))
        venue = rng.choice(v.VENUES)
        paper = Paper(i, year, venue, system, title, "ja" if rng.random() < 0.6 else "en",
                      authors, concepts, parents, figure=rng.random() < 0.05,
                      dangling=rng.random() < 0.02)
        paper.stem = f"@{year}__{venue}__{title}"
        paper.alias = f"@{year}__{venue}__{system}"
        return paper

    def _products(self) -> list[str]:
        out: list[str] = []
        for _ in range(self.counts.products):
            if self.rng.random() < 0.5:
                # A product named after a paper's system: plain mentions of it in papers.
                out.append(self.namer.unique(lambda: self.rng.choice(self.papers).system + " "
                                             + self.rng.choice(("Runtime", "Engine", "Library"))))
            else:
                out.append(self.namer.unique(self._system_name))
        return out

    def _developer(self) -> str:
        r = self.rng.random()
        if r < 0.1:
            return ""
        if r < 0.25:
            return self.persons[self.person_pick(self.rng)]
        return self.orgs[self.org_pick(self.rng)]

    def _timeline(self) -> list[Entry]:
        """Organizations first (vault setup), then everything else interleaved with the papers
        in order, a lint entry every ~100 entries. Dates advance a few entries per day."""
        rng = self.rng
        c = self.counts
        others = ([("person", i) for i in range(c.persons)]
                  + [("concept", i) for i in range(c.concepts)]
                  + [("product", i) for i in range(c.products)])
        rng.shuffle(others)
        refs: list[tuple[str, int]] = [("setup", 0)] + [("org", i) for i in range(c.orgs)]
        paper_i, other_i = 0, 0
        while paper_i < c.papers or other_i < len(others):
            left_p, left_o = c.papers - paper_i, len(others) - other_i
            if rng.random() * (left_p + left_o) < left_p:
                refs.append(("paper", paper_i))
                paper_i += 1
            else:
                refs.append(others[other_i])
                other_i += 1
        entries: list[Entry] = []
        lints = 0
        for n, ref in enumerate(refs, start=1):
            entries.append(Entry({"paper": "ingest-paper", "concept": "create-concept",
                                  "setup": "tooling"}.get(ref[0], "create-entity"), ref))
            if n % 97 == 0:
                entries.append(self._lint(lints, entries))
                lints += 1
        per_day = max(4, len(entries) // 1400)
        day, used, quota = START, 0, rng.randint(1, 2 * per_day - 1)
        for entry in entries:
            if used >= quota:
                day, used, quota = day + dt.timedelta(days=1), 0, rng.randint(1, 2 * per_day - 1)
            entry.date = day
            used += 1
        for entry in entries:
            if entry.op == "lint":
                entry.block = f"lint-{entry.date:%Y%m%d}-{entry.ref[1]}"
        return entries

    def _lint(self, number: int, entries: list[Entry]) -> Entry:
        """A lint entry that corrects a recent paper (which then carries a callout)."""
        recent = [e.ref[1] for e in entries[-97:] if e.ref[0] == "paper"]
        entry = Entry("lint", ("lint", number))
        if recent:
            paper = self.papers[recent[len(recent) // 2]]
            if paper.callout is None and self.rng.random() < 0.6:
                paper.callout = number
            entry.updates.append(paper.alias)
        entry.updates += [self.concepts[self.concept_pick(self.rng)] for _ in range(2)]
        return entry

    def _folds(self) -> list[tuple[Entry, list[Entry]]]:
        """Fold pages over whole days (1-3 days each, never overlapping); each fold's own log
        entry lands on the day after its range."""
        by_day: dict[dt.date, list[Entry]] = {}
        for entry in self.entries:
            by_day.setdefault(entry.date, []).append(entry)
        days = sorted(by_day)
        out: list[tuple[Entry, list[Entry]]] = []
        step = max(4, (len(days) * 9 // 10) // self.counts.folds)
        for number in range(self.counts.folds):
            start = 1 + number * step
            span = self.rng.randint(1, 3)
            if start + span >= len(days):
                start = max(0, len(days) - span - 1)
            covered = [e for d in days[start:start + span] for e in by_day[d]]
            entry = Entry("fold", ("fold", number), date=days[start + span])
            by_day[days[start + span]].append(entry)
            out.append((entry, covered))
        self.entries = [e for d in days for e in by_day[d]]
        return out

    # -- names of things -------------------------------------------------------------------

    def fold_id(self, number: int) -> str:
        _, covered = self.folds[number]
        n = len(covered)
        return (f"fold-k{max(n.bit_length() - 1, 0)}-from-{covered[0].date}-to-"
                f"{covered[-1].date}-n{n}")

    def page_name(self, ref: tuple[str, int]) -> str:
        kind, i = ref
        if kind == "paper":
            return self.papers[i].alias
        if kind == "fold":
            return self.fold_id(i)
        if kind == "setup":
            return "index"
        names = {"person": self.persons, "org": self.orgs, "concept": self.concepts,
                 "product": self.products}
        return names[kind][i]

    def paper_link(self, i: int, display: bool | None = None) -> str:
        paper = self.papers[i]
        show = self.rng.random() < 0.3 if display is None else display
        return f"[[{paper.alias}|{paper.system}]]" if show else f"[[{paper.alias}]]"

    def numbers(self) -> dict[str, str]:
        rng = self.rng
        return {"x": f"{rng.uniform(1.1, 9.9):.1f}", "p": str(rng.randint(3, 95)),
                "n": str(rng.choice((8, 16, 64, 128, 256, 512, 1024, 3072)))}
