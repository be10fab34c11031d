"""The lean path for the request nearly every client sends: one JSON object POSTed to /graphql
with a query that parses and validates.

strawberry's FastAPI router spends ~0.6 ms of CPU on such a request besides its execution
(FastAPI's routing and dependency injection, the view's parsing of the request, the response
object), and strawberry's `execute` ~0.3 ms more (extension hooks around a cached parse and
validation): a third of what the API adds to a 3 ms query. Here the same request is read,
executed by graphql-core with the same schema, rules, context and error codes, and answered
directly. Everything else goes to strawberry's router as it came: GET and GraphiQL, other
content types, batches, query strings, a streaming `Accept`, a body or query that does not
parse or validate, subscriptions. So every refusal keeps strawberry's status and message;
tests/test_lean_graphql.py compares both paths' answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from inspect import isawaitable
from typing import Any, cast

import orjson
from graphql import DocumentNode, GraphQLError, OperationType, execute, parse, specified_rules
from graphql.utilities import get_operation_ast
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from strawberry.execution import optimized_is_awaitable
from strawberry.http import process_result
from strawberry.schema.schema import validate_document
from strawberry.types import ExecutionResult

from api.context import ApiContext
from api.errors import with_codes
from api.plain_completion import PlainCompletionContext
from api.request_context import request_context
from api.schema import LIMIT_RULES, MAX_TOKENS, on_executor, query_cost, schema

PATH = "/graphql"
# Longer query texts take strawberry's path: the cache keeps only texts a client repeats.
MAX_CACHED_QUERY = 100_000
CACHED_DOCUMENTS = 256
RULES = (*specified_rules, *LIMIT_RULES)
LEAN_OPERATIONS = (OperationType.QUERY, OperationType.MUTATION)
JSON_HEADERS = [(b"content-type", b"application/json")]


@dataclass(frozen=True)
class LeanRequest:
    """A request body the lean path can take: a query text, variables, an operation name."""

    query: str
    variables: dict[str, Any] | None
    operation_name: str | None


def lean_request(body: bytes) -> LeanRequest | None:
    """The request in `body`, or None when strawberry's router must answer it (not a JSON
    object; a batch; fields of the wrong type; `extensions`, which only its hooks read)."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict) or data.get("extensions") is not None:
        return None
    query, variables, name = data.get("query"), data.get("variables"), data.get("operationName")
    if not isinstance(query, str) or not query or len(query) > MAX_CACHED_QUERY:
        return None
    if not (variables is None or isinstance(variables, dict)) or not (
            name is None or isinstance(name, str)):
        return None
    return LeanRequest(query, variables, name)


def prepared_documents(size: int = CACHED_DOCUMENTS) -> Callable[[str], DocumentNode | None]:
    """Parsed documents that passed validation, by query text (the `size` most recently used
    kept); None for a text that does not, which strawberry's router then answers. The rules
    are strawberry's, the schema's limits included, and the token limit is its parser's."""
    return lru_cache(maxsize=size)(_prepared)


def _prepared(query: str) -> DocumentNode | None:
    try:
        document = parse(query, max_tokens=MAX_TOKENS)
    except GraphQLError:
        return None
    if validate_document(schema._schema, document, RULES):
        return None
    return document


DOCUMENTS = prepared_documents()


async def execute_lean(request: LeanRequest, context: ApiContext) -> ExecutionResult | None:
    """The result of `request`, as strawberry's `execute` gives it (errors logged as
    `VaultkgSchema.process_errors` logs them, then coded; the cost report), or None for a
    request strawberry must answer. Runs on an execution thread (`on_executor`): parsing and
    validating a new text is CPU work too."""
    document = DOCUMENTS(request.query)
    if document is None:
        return None
    operation = get_operation_ast(document, request.operation_name)
    if operation is None or operation.operation not in LEAN_OPERATIONS:
        return None
    data: dict[str, Any] | None = None
    try:
        result = execute(schema._schema, document, context_value=context,
                         variable_values=request.variables,
                         operation_name=request.operation_name,
                         is_awaitable=cast(Any, optimized_is_awaitable),
                         executor_class=PlainCompletionContext)
        if isawaitable(result):
            result = await result
        data, errors = result.data, result.errors
    except Exception as exc:  # as strawberry's execute: an error of the result, not a 500
        errors = [GraphQLError(str(exc), original_error=exc)]
    if errors:
        schema.process_errors(errors)
    return ExecutionResult(data=data, errors=with_codes(errors), extensions=query_cost(context))


def http_body(result: ExecutionResult) -> bytes:
    """The response body strawberry's view makes of `result`, encoded with orjson as
    `JsonSafeGraphQLRouter` does."""
    return orjson.dumps(process_result(result))


class LeanGraphQL:
    """ASGI middleware: answers a plain JSON POST to /graphql itself (see the module), passes
    everything else to the app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _plain_json_post(scope):
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        if body is None:  # the client left
            return
        request = lean_request(body)
        result = None
        if request is not None:
            http = Request(scope)
            context = await request_context(http, http.app.state.settings)
            context.request = http
            result = await on_executor(execute_lean(request, context))
        if result is None:
            await self.app(scope, _replayed(body, receive), send)
            return
        payload = http_body(result)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", str(len(payload)).encode()),
                                *JSON_HEADERS]})
        await send({"type": "http.response.body", "body": payload})


def _plain_json_post(scope: Scope) -> bool:
    """A POST to /graphql without a query string, with a JSON body, not asking for a stream."""
    if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != PATH \
            or scope.get("query_string"):
        return False
    content_type = accept = b""
    for name, value in scope["headers"]:
        if name == b"content-type":
            content_type = value
        elif name == b"accept":
            accept = value
    media_type = content_type.split(b";", 1)[0].strip().lower()
    return media_type == b"application/json" and b"multipart/" not in accept \
        and b"text/event-stream" not in accept


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replayed(body: bytes, receive: Receive) -> Receive:
    """`receive` for the app after the lean path has read the body: the body again, then
    whatever comes next (a disconnect)."""
    pending = True

    async def again() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again
