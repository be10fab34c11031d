"""Names crafted as Cypher (quotes, `'}) DETACH DELETE n //`, backticks, `$param`, escapes) are
data: stored verbatim, read back equal, and the rest of the graph is untouched. Property tests
check the link parser against an exact oracle, and the round trip vault -> graph for arbitrary
titles, aliases, tags and link texts."""

from __future__ import annotations

import json
import posixpath
import tempfile
import unicodedata
from pathlib import Path
from typing import Any, LiteralString

import neo4j
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph.ingest import ingest
from loaders.errors import VaultError
from loaders.frontmatter import split_frontmatter
from loaders.links import body_lines, find_links
from loaders.resolver import ATTACHMENT_SUFFIXES
from loaders.text import fold_name
from tests import db as test_db

EVIL = (
    "'}) DETACH DELETE n //",
    '"}) DETACH DELETE n //',
    "`x` }) MATCH (n) DETACH DELETE n RETURN 1 //",
    "$param",
    "$key}) SET n.pwned = true //",
    "\\u0027) DETACH DELETE n //",
    "{key: 'x'}",
    "'; CALL apoc.cypher.runWrite('MATCH (n) DETACH DELETE n', {}) //",
    "Robert'); DROP TABLE pages;--",
    "``\\`` ` ' \" \\ {} () ; //",
)
# Backticks are left out of link texts: the body parser blanks inline code before it reads
# links, so the display of `[[a|`x` y]]` comes back as "y" (reported to the lead).
EVIL_DISPLAYS = tuple(e for e in EVIL if "`" not in e)
# File names (= page keys) hold no `/` and no `\` (Obsidian forbids both; a `\` in a link is
# read as `/`), and no backticks (as above).
EVIL_FILE_NAMES = (
    "'}) DETACH DELETE n ",
    "$param {y} (x); MATCH (n) RETURN n",
    "quote' and \"double\" }{",
)


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def rows(driver: neo4j.Driver, database: str, query: LiteralString,
         **params: Any) -> list[dict[str, Any]]:
    records, _, _ = driver.execute_query(query, params, database_=database)
    return [r.data() for r in records]


def _display(i: int) -> str:
    return EVIL_DISPLAYS[i % len(EVIL_DISPLAYS)]


def _write_evil_vault(root: Path) -> None:
    root.mkdir()
    (root / "sentinel.md").write_text("---\ntitle: Sentinel\n---\n\nStill here.\n",
                                      encoding="utf-8")
    for i, evil in enumerate(EVIL):
        aliases = "".join(f"  - {_q(a)}\n" for a in (evil, f"{evil} alias"))
        tags = "".join(f"  - {_q(t)}\n" for t in (evil, "plain"))
        (root / f"evil-{i}.md").write_text(
            f"---\ntitle: {_q(evil)}\naliases:\n{aliases}tags:\n{tags}---\n\n"
            f"- link to [[sentinel|{_display(i)}]]\n", encoding="utf-8")
    for name in EVIL_FILE_NAMES:
        (root / f"{name}.md").write_text(f"# {name}\n\n[[sentinel]]\n", encoding="utf-8")
    (root / "links.md").write_text(
        "".join(f"- [[{name}]]\n" for name in EVIL_FILE_NAMES), encoding="utf-8")


@pytest.mark.integration
def test_cypher_like_names_are_stored_verbatim(clean_db: neo4j.Driver, neo4j_database: str,
                                              tmp_path: Path) -> None:
    vault = tmp_path / "evil"
    _write_evil_vault(vault)
    report = ingest(clean_db, neo4j_database, vault)
    assert report.skipped == [] and report.problems == []
    expected_pages = 1 + len(EVIL) + len(EVIL_FILE_NAMES) + 1
    assert report.pages == expected_pages

    for i, evil in enumerate(EVIL):
        found = rows(clean_db, neo4j_database,
                     "MATCH (p:Page {key: $key}) OPTIONAL MATCH (p)-[r:LINKS_TO]->(t) "
                     "RETURN p.title AS title, p.aliases AS aliases, p.tags AS tags, "
                     "collect([t.key, r.display]) AS links", key=f"evil-{i}")
        assert found == [{"title": evil, "aliases": [evil, f"{evil} alias"],
                          "tags": [evil, "plain"], "links": [["sentinel", _display(i)]]}]
    keys = rows(clean_db, neo4j_database,
                "MATCH (:Page {key: 'links'})-[r:LINKS_TO]->(t:Page) "
                "RETURN t.key AS key ORDER BY r.line")
    assert [r["key"] for r in keys] == list(EVIL_FILE_NAMES)

    # Nothing was deleted or set by the text: every page is there, nobody got a new property.
    counts = rows(clean_db, neo4j_database,
                  "MATCH (p:Page) RETURN count(p) AS pages, "
                  "count(CASE WHEN p.pwned IS NOT NULL THEN 1 END) AS pwned")
    assert counts == [{"pages": expected_pages, "pwned": 0}]
    sentinel = rows(clean_db, neo4j_database,
                    "MATCH (s:Page {key: 'sentinel'})<-[r:LINKS_TO]-() RETURN count(r) AS n")
    assert sentinel == [{"n": len(EVIL) + len(EVIL_FILE_NAMES)}]
    # Searching for the crafted strings (parameters) finds them through the full-text index.
    hits = rows(clean_db, neo4j_database,
                "MATCH (p:Page) WHERE $name IN p.aliases RETURN p.key AS key", name=EVIL[0])
    assert hits == [{"key": "evil-0"}]

    again = ingest(clean_db, neo4j_database, vault)
    assert not again.changed and again.pages == expected_pages


# ---- property tests: the parser ------------------------------------------------------------

# Filler never makes or breaks a link: no brackets, no `!` (embeds), no backticks or `~`
# (code), no newline.
FILLER = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="[]!`~\n\r"),
                 max_size=30)
# Link parts, stripped and non-empty, as `_split_target` gives them back (no backticks:
# `body_lines` blanks inline code).
_PART_CHARS = st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp"),
                            exclude_characters="[]|#^`\n\r")
TARGET = st.text(_PART_CHARS, min_size=1, max_size=25).map(str.strip).filter(bool)
HEADING = st.one_of(st.none(), TARGET)
DISPLAY = st.one_of(st.none(), st.text(st.characters(
    exclude_categories=("Cs", "Cc", "Zl", "Zp"), exclude_characters="[]`\n\r"),
    min_size=1, max_size=25).map(str.strip).filter(bool))


Oracle = tuple[str, str | None, str | None, bool]  # target, heading, display, embed


@st.composite
def link(draw: st.DrawFn) -> tuple[str, Oracle]:
    target, heading, display = draw(TARGET), draw(HEADING), draw(DISPLAY)
    embed = draw(st.booleans())
    text = ("!" if embed else "") + "[[" + target + (f"#{heading}" if heading else "") + \
        (f"|{display}" if display else "") + "]]"
    return text, (target, heading, display, embed)


@given(st.lists(st.tuples(FILLER, link()), max_size=8), FILLER)
@settings(max_examples=300, deadline=None)
def test_find_links_finds_exactly_the_links_written(
        parts: list[tuple[str, tuple[str, Oracle]]], tail: str) -> None:
    line = "".join(filler + text for filler, (text, _) in parts) + tail
    found = find_links(line)
    assert [(lk.target, lk.heading, lk.display, lk.embed) for lk in found] == [
        oracle for _, (_, oracle) in parts]
    assert [line[lk.start:lk.end] for lk in found] == [lk.raw for lk in found]


@given(st.lists(st.lists(st.tuples(FILLER, link()), max_size=4), min_size=1, max_size=6))
@settings(max_examples=150, deadline=None)
def test_links_keep_their_line_numbers(lines: list[list[tuple[str, tuple[str, Oracle]]]]
                                       ) -> None:
    text = ["".join(filler + written for filler, (written, _) in line) for line in lines]
    got = [(number, lk.target) for number, body in body_lines(text, 1) for lk in find_links(body)]
    assert got == [(number, oracle[0]) for number, line in enumerate(lines, start=1)
                   for _, (_, oracle) in line]


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_find_links_never_fails_and_spans_match(line: str) -> None:
    for lk in find_links(line):
        assert line[lk.start:lk.end] == lk.raw


@given(st.text(max_size=300))
@settings(max_examples=300, deadline=None)
def test_frontmatter_either_parses_or_names_the_line(text: str) -> None:
    try:
        front = split_frontmatter("---\n" + text + "\n---\nbody", "p.md")
    except VaultError as exc:
        assert exc.path == "p.md" and exc.line is not None and exc.line >= 1
        assert str(exc).startswith("p.md:")
    else:
        assert isinstance(front.data, dict)
        assert front.lines[front.body_start - 1:][-1] == "body"


# ---- property tests: the round trip vault -> graph ----------------------------------------

_NAME_CHARS = st.characters(exclude_categories=("Cs", "Cc", "Cn", "Co", "Zl", "Zp"),
                            exclude_characters="[]|#^/\\`\ufeff")


def _usable(name: str) -> bool:
    folded = fold_name(name)
    suffix = posixpath.splitext(name.lower())[1]
    return bool(folded) and name == name.strip() and folded not in ("subject", "linker") \
        and suffix not in ATTACHMENT_SUFFIXES and not name.lower().endswith(".md")


NAME = st.text(_NAME_CHARS, min_size=1, max_size=30).filter(_usable)


@pytest.fixture(scope="module")
def graph(neo4j_driver: neo4j.Driver, neo4j_database: str) -> tuple[neo4j.Driver, str]:
    return neo4j_driver, neo4j_database


@pytest.mark.integration
@given(title=NAME, aliases=st.lists(NAME, min_size=1, max_size=3, unique_by=fold_name),
       tags=st.lists(NAME.filter(lambda t: not t.startswith("#")), max_size=3, unique=True),
       display=NAME)
@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_round_trip_keeps_names_verbatim(graph: tuple[neo4j.Driver, str], title: str,
                                         aliases: list[str], tags: list[str],
                                         display: str) -> None:
    driver, database = graph
    test_db.wipe(driver, database)
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp)
        front = (f"---\ntitle: {_q(title)}\naliases:\n" +
                 "".join(f"  - {_q(a)}\n" for a in aliases) + "tags:\n" +
                 "".join(f"  - {_q(t)}\n" for t in tags) + "---\n")
        (vault / "subject.md").write_text(front + "\nThe subject.\n", encoding="utf-8")
        (vault / "linker.md").write_text(
            "".join(f"- see [[{a}|{display}]]\n" for a in aliases), encoding="utf-8")
        report = ingest(driver, database, vault)
    assert report.skipped == [] and report.pages == 2
    found = rows(driver, database,
                 "MATCH (p:Page {key: 'subject'}) RETURN p.title AS title, p.aliases AS aliases, "
                 "p.tags AS tags")
    nfc = [unicodedata.normalize("NFC", a) for a in aliases]
    assert found == [{"title": unicodedata.normalize("NFC", title), "aliases": nfc,
                      "tags": tags}]
    links = rows(driver, database,
                 "MATCH (:Page {key: 'linker'})-[r:LINKS_TO]->(t) "
                 "RETURN t.key AS key, r.display AS display, r.line AS line ORDER BY r.line")
    assert links == [{"key": "subject", "display": display, "line": i}
                     for i in range(1, len(aliases) + 1)]
