"""The GraphQL schema: Query merged from the field groups in api/fields, the Mutation, and the
protections every request passes through (depth, alias and token limits, parse/validation
caches, error codes, a cost report). `python -m api.schema` rewrites api/schema.graphql."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine, Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
    ValidationCache,
)
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext, ExecutionResult
from strawberry.types.graphql import OperationType

from api.context import ApiContext
from api.errors import log_unexpected, with_codes
from api.fields.contradictions import ContradictionQueries
from api.fields.diagrams import DiagramQueries
from api.fields.folds import FoldQueries
from api.fields.lineage import LineageQueries
from api.fields.log import LogQueries
from api.fields.pages import PageQueries
from api.fields.search import SearchQueries
from api.mutations import Mutation
from api.plain_completion import PlainCompletionContext
from api.request_loops import run_on_thread_loop
from api.types import CONCRETE_TYPES

MAX_DEPTH = 12
MAX_ALIASES = 100
MAX_TOKENS = 5000
SDL_PATH = Path(__file__).with_name("schema.graphql")
T = TypeVar("T")
# Executing a document (validating, resolving, building the response) is CPU work; on the
# server's event loop one heavy query would stall every other request, /healthz included
# (tests/test_api_abuse.py). Each execution runs in its own loop on one of these threads;
# further requests wait their turn without blocking anything. Each thread keeps its loop (and
# that loop's executor for the blocking driver calls) from one request to the next.
MAX_CONCURRENT_EXECUTIONS = 16
EXECUTOR = ThreadPoolExecutor(MAX_CONCURRENT_EXECUTIONS, thread_name_prefix="vaultkg-graphql")
# The depth and alias limits as validation rules built once: the limiter extensions build a new
# rule class per instance, i.e. per request, and ValidationCache keys on the rules, so with
# them every request missed the cache and validated again.
LIMIT_RULES = (QueryDepthLimiter(max_depth=MAX_DEPTH).validation_rules
               + MaxAliasesLimiter(max_alias_count=MAX_ALIASES).validation_rules)

# Extension point: each group is a @strawberry.type of Query fields (use decorators.read_field).
# To add fields (e.g. `fold(from:, to:, asOf:)`), write a group in api/fields/ and append it.
QUERY_GROUPS: tuple[type, ...] = (
    PageQueries,
    LineageQueries,
    SearchQueries,
    ContradictionQueries,
    LogQueries,
    FoldQueries,
    DiagramQueries,
)


def query_cost(ctx: object) -> dict[str, Any]:
    """What `extensions` reports of a request: its Neo4j round trips and objects."""
    if not isinstance(ctx, ApiContext):
        return {}
    return {"cost": {"neo4jQueries": ctx.graph.queries_run, "objects": ctx.objects}}


class QueryCost(SchemaExtension):
    """Reports in `extensions.cost` how many Neo4j round trips and objects a request took."""

    def get_results(self) -> dict[str, Any]:
        return query_cost(self.execution_context.context)


async def on_executor(execution: Coroutine[Any, Any, T]) -> T:
    """Run an execution on one of the EXECUTOR threads' loops, off the server's loop."""
    return await asyncio.get_running_loop().run_in_executor(EXECUTOR, run_on_thread_loop,
                                                            execution)


class VaultkgSchema(strawberry.Schema):
    """Every result's errors carry `extensions.code` (api/errors.py decides which); only
    unexpected errors are logged (with traceback): user errors are not server problems."""

    async def execute(
            self, query: str | None, variable_values: dict[str, Any] | None = None,
            context_value: Any | None = None, root_value: Any | None = None,
            operation_name: str | None = None,
            allowed_operation_types: Iterable[OperationType] | None = None,
            operation_extensions: dict[str, Any] | None = None) -> ExecutionResult:
        execution = super().execute(query, variable_values, context_value, root_value,
                                    operation_name, allowed_operation_types,
                                    operation_extensions)
        result = await on_executor(execution)
        result.errors = with_codes(result.errors)
        return result

    def process_errors(self, errors: list[GraphQLError],
                       execution_context: ExecutionContext | None = None) -> None:
        log_unexpected(errors)


def build_schema() -> strawberry.Schema:
    return VaultkgSchema(
        query=merge_types("Query", QUERY_GROUPS),
        mutation=Mutation,
        types=CONCRETE_TYPES,
        execution_context_class=PlainCompletionContext,
        extensions=[
            partial(MaxTokensLimiter, max_token_count=MAX_TOKENS),
            partial(AddValidationRules, list(LIMIT_RULES)),
            partial(ParserCache, maxsize=256),
            partial(ValidationCache, maxsize=256),
            QueryCost,
        ],
    )


schema = build_schema()


def sdl() -> str:
    """The schema as SDL, as committed in api/schema.graphql."""
    return str(schema).rstrip("\n") + "\n"


if __name__ == "__main__":
    SDL_PATH.write_text(sdl(), encoding="utf-8")
    sys.stdout.write(f"wrote {SDL_PATH}\n")
