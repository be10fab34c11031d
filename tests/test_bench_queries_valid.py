"""Every GraphQL query the query benchmark sends is valid against the API's schema: an invalid
one measures nothing but validation errors (which the benchmark counts, but only after a run)."""

from __future__ import annotations

import pytest
from graphql import parse, validate

from api.schema import schema
from benchmarks import query_bench

QUERIES = {name: value for name, value in vars(query_bench).items()
           if isinstance(value, str) and value.lstrip().startswith("query")}


def test_the_benchmark_sends_queries() -> None:
    assert {"LINEAGE", "PATH", "CONTRADICTIONS", "SEARCH", "PAGES", "FOLD"} <= set(QUERIES)


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_benchmark_query_is_valid(name: str) -> None:
    errors = validate(schema._schema, parse(QUERIES[name]))
    assert errors == [], (name, [e.message for e in errors])
