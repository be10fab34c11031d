"""The first items of a contradiction's long lists, stored beside the lists, with their counts.

A conflict about a popular concept lists thousands of evidence lines and hundreds of pages, and
Neo4j reads a list property whole: a screen that shows the first five of each read a hub
subject's megabytes (at 100k, 19 contradictions with 9,491 evidence lines and ~10,000 page
keys: 10 ms of a 12 ms query). So each contradiction also stores the first `HEAD` items of
`evidence` and `pages` and how many there are; `queries.contradictions` reads those when it
shows no more than `HEAD`. Every path that writes a list writes its head and count with it
(the writer, the log's moves, renames, the RDF import); a graph written before them still
reads right, from the whole lists."""

from __future__ import annotations

from typing import Any, Final, LiteralString

HEAD: Final = 10
HEAD_TEXT: LiteralString = "10"  # HEAD in Cypher text (a constant, never user input)
assert int(HEAD_TEXT) == HEAD
# Each headed list property: (its head's property, its count's property).
HEADED: Final[dict[str, tuple[LiteralString, LiteralString]]] = {
    "evidence": ("evidence_head", "evidence_count"),
    "pages": ("pages_head", "page_count"),
}
HEAD_PROPERTIES: Final = frozenset(p for pair in HEADED.values() for p in pair)


def list_heads(props: dict[str, Any]) -> dict[str, Any]:
    """The head and count of each headed list in `props` (a contradiction's properties)."""
    out: dict[str, Any] = {}
    for name, (head, count) in HEADED.items():
        items = props.get(name)
        if items is not None:
            out[head] = list(items[:HEAD])
            out[count] = len(items)
    return out
