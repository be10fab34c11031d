"""Small builders of fold-resolver inputs for the pure tests (no graph)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

from typer.testing import Result

from queries.fold_models import BulletFacts, ConceptFacts, EntryFacts, TouchFacts

D1, D2, D3 = dt.date(2026, 5, 1), dt.date(2026, 5, 2), dt.date(2026, 5, 3)


def touch(name: str, role: str = "summary", line: int | None = None, *, kind: str = "Source",
          dangling: bool = False, created: dt.date | None = None,
          aliases: Sequence[str] = (), about: Sequence[str] = ()) -> TouchFacts:
    return TouchFacts(role=role, line=line, key=None if dangling else name, name=name,
                      kind=None if dangling else kind, created=created,
                      aliases=tuple(aliases),
                      about=tuple(ConceptFacts(key=c) for c in about))


def entry(seq: int, date: dt.date, title: str, bullets: Sequence[tuple[str, str]],
          touches: Sequence[TouchFacts], op: str = "ingest-paper") -> EntryFacts:
    """Bullets get lines seq*10+i; a touch without a line gets the line of the first bullet
    that names it."""
    facts = [BulletFacts(label=label, text=text, line=seq * 10 + i)
             for i, (label, text) in enumerate(bullets)]
    placed = []
    for t in touches:
        line = t.line
        if line is None:
            names = [t.name, *t.aliases]
            line = next((b.line for b in facts if any(f"[[{n}" in b.text for n in names)), None)
        placed.append(t.model_copy(update={"line": line}))
    return EntryFacts(key=f"log/{date.isoformat()}/{seq:02d}", date=date, op=op, title=title,
                      seq=seq, text=" ".join(b.text for b in facts), bullets=tuple(facts),
                      touches=tuple(placed))


def paper(seq: int, date: dt.date, name: str, insight: str, about: Sequence[str] = (),
          created: Sequence[str] = ()) -> EntryFacts:
    """An ingest entry: Summary through the page's short alias, created pages, a key insight."""
    full = f"@2024__Venue__{name} Long Title"
    alias = f"@2024__Venue__{name}"
    bullets = [("Source", f"`.raw/papers/{name}.pdf`"), ("Summary", f"[[{alias}]]")]
    touches = [touch(full, aliases=(alias,), about=about, created=date)]
    if created:
        bullets.append(("Pages created", ", ".join(f"[[{c}]]" for c in created)))
        touches += [touch(c, "created", kind="Concept", created=date) for c in created]
    bullets.append(("Key insight", insight))
    return entry(seq, date, name, bullets, touches)


# ---- integration helpers -----------------------------------------------------------------------

FOLD_SNAPSHOT = (
    "MATCH (f:Fold) OPTIONAL MATCH (f)-[r:FOLDS]->(e:LogEntry) "
    "WITH f, r, e ORDER BY r.position "
    "RETURN f.fold_id AS fold_id, f.key AS key, labels(f) AS labels, f.level AS level, "
    "f.entry_count AS entry_count, f.child_keys AS child_keys, f.path AS path, "
    "collect([r.position, e.key, r.asserted_by]) AS folds ORDER BY fold_id")


def fold_snapshot(driver: object, database: str) -> list[dict[str, Any]]:
    """Every Fold node with its FOLDS edges (position, entry key, asserted_by)."""
    import neo4j

    assert isinstance(driver, neo4j.Driver)
    records, _, _ = driver.execute_query(FOLD_SNAPSHOT, database_=database)
    return [{**r.data(), "labels": sorted(r["labels"])} for r in records]


def cli_runner() -> Callable[..., Result]:
    """A function running `vaultkg ARGS...` in this process. Its settings come from the
    environment, which names the test database once a test holds it (tests/db.py `export`)."""
    from typer.testing import CliRunner

    from api.cli import app

    runner = CliRunner()

    def run(*args: str) -> Result:
        return runner.invoke(app, list(args))

    return run
