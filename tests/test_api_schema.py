"""The committed SDL (api/schema.graphql) is exactly what the code builds; regenerate it with
`make schema` (python -m api.schema) after changing the API."""

from __future__ import annotations

from api.schema import SDL_PATH, sdl


def test_committed_sdl_matches_the_code() -> None:
    committed = SDL_PATH.read_text(encoding="utf-8")
    assert committed == sdl(), "api/schema.graphql is stale: run `make schema` and commit it"


def test_sdl_has_the_issue_types_and_entry_points() -> None:
    text = sdl()
    for type_name in ("Page", "Paper", "Person", "Organization", "Product", "Concept",
                      "Venue", "LogEntry", "Fold", "Claim", "Contradiction", "LineageEdge"):
        assert f"type {type_name} " in text or f"interface {type_name} " in text, type_name
    for field in ("node(id: ID!): Node", "page(key: String!): Page", "search(text: String!",
                  "lineage(", "lineagePath(", "timeline(concept: String!)", "contradictions(",
                  "logEntries(", "ingest(path: String!"):
        assert field in text, field
