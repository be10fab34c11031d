"""Plain objects completed in one pass (api/plain_completion.py) give what graphql-core gives:
the same data and the same errors (message and path) on a small schema fed good and broken
values (a null where none may be, values a scalar refuses, a wrong object, a string for a
list), and on every query the benchmark sends, against the example vault in a real Neo4j. And
the pass really takes over: a list of plain objects no longer goes field by field."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from enum import Enum
from typing import Any, NewType, cast

import pytest
import strawberry
from graphql import FragmentDefinitionNode, GraphQLError, OperationDefinitionNode
from strawberry.extensions import ParserCache, SchemaExtension
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from api.auth import CanRead
from api.context import ApiContext, CountingGraphContext
from api.decorators import pure_field
from api.plain_completion import (
    PURE,
    PlainCompletionContext,
    SharedPlans,
    pure_resolver,
    takes_variables,
)
from api.schema import build_schema
from benchmarks import query_bench
from tests.api_server import settings_for
from tests.db import TestDatabase
from tests.vaults import S

# -- a small schema, fed good and broken values --------------------------------------------------


@strawberry.interface
class Shape:
    name: str


@strawberry.type
class Square(Shape):
    side: int


@strawberry.type
class Circle(Shape):
    radius: float
    tags: list[str | None]


@strawberry.enum
class Color(Enum):
    RED = "red"
    BLUE = "blue"


# Written as text; an empty one serializes to null (which graphql-core refuses).
Code = NewType("Code", str)
CONFIG = StrawberryConfig(scalar_map={Code: strawberry.scalar(
    name="Code", serialize=lambda v: str(v) or None, parse_value=str)})


@strawberry.type
class Point:
    x: int
    code: Code
    y: int | None
    label: str
    color: Color
    day: dt.date | None
    shapes: list[Shape]
    near: list[Point]
    sizes: list[int]
    twins: list[Point | None] | None = None

    @pure_field()
    def first_near(self, max_count: int | None = None, skip: int = 0) -> list[Point]:
        if self.label == "refuse" or (max_count is not None and max_count < 0):
            raise ValueError("refused")
        return self.near[skip:][:max_count]

    @strawberry.field
    def double(self) -> int:
        return self.x * 2

    @strawberry.field
    async def later(self) -> str:
        return self.label

    @strawberry.field
    def checked(self) -> int:
        if self.label == "boom":
            raise ValueError("boom")
        return self.x

    @strawberry.field
    async def checked_later(self) -> str | None:
        if self.label == "boom":
            raise ValueError("later boom")
        return self.label


@strawberry.type
class Query:
    points: list[Point]
    first: Point | None
    shape: Shape | None
    square: Square | None = None


def point(x: Any = 1, **changes: Any) -> Point:
    values: dict[str, Any] = {
        "x": x, "code": f"c{x}", "y": None if x == 1 else 7, "label": f"p{x}", "color": Color.BLUE,
        "day": dt.date(2024, 5, 1), "shapes": [Square(name="s", side=2),
                                               Circle(name="c", radius=1.5, tags=["a", None])],
        "near": [], "sizes": [x, 2], "twins": None}
    values.update(changes)
    return Point(**values)


class LookAlike:
    """Has the attributes of a Point and of a Square, is neither."""

    def __init__(self) -> None:
        self.__dict__.update(vars(point(11)), name="look", side=4)


def good() -> Query:
    p = point(1, near=[point(2), point(3)], twins=[point(4), None])
    return Query(points=[p, point(5)], first=p, shape=Circle(name="o", radius=0.0, tags=[]),
                 square=Square(name="q", side=3))


def toy_schema(context: type = PlainCompletionContext, *extensions: Any) -> strawberry.Schema:
    return strawberry.Schema(query=Query, types=[Square, Circle], config=CONFIG,
                             extensions=list(extensions), execution_context_class=context)


def schemas() -> tuple[strawberry.Schema, strawberry.Schema]:
    return toy_schema(), toy_schema(StrawberryGraphQLCoreExecutionContext)


def outcome(schema: strawberry.Schema, query: str, root: Query,
            variables: dict[str, Any] | None = None) -> tuple[Any, list[tuple[str, Any]]]:
    result = asyncio.run(schema.execute(query, variable_values=variables, root_value=root))
    errors = [(e.message, e.path) for e in result.errors or []]
    return result.data, sorted(errors, key=repr)


EVERYTHING = """query($with: Boolean!, $n: Int = 1) { points { x y label color day double later
  shapes { __typename name ... on Square { side } ... on Circle { radius tags } }
  near { x code label shapes { name } } twins { label } sizes firstNear(maxCount: $n) { x } }
  first { kind: __typename x @include(if: $with) checkedLater y @skip(if: $with) checked
          alias: label twins { label checkedLater checked } firstNear(skip: 1) { label } }
  shape { name ... on Circle { tags } } square { name side } }"""
PLAIN = """{ points { x label color day shapes { __typename name ... on Square { side } }
  near { x code label color } sizes firstNear(maxCount: 1) { x code }
  plainNear: near { x label y kind: __typename } } first { x } square { name } }"""


def broken(case: str) -> Query:
    root = good()
    target = root.points[0]
    if case == "int refuses a string":
        target.near[1].x = "abc"  # type: ignore[assignment]
    elif case == "null for a non-null leaf":
        target.near[0].label = None  # type: ignore[assignment]
    elif case == "null item in a non-null list":
        target.near.append(None)  # type: ignore[arg-type]
    elif case == "null item in a nullable list":
        target.twins = [None, point(9)]
    elif case == "a wrong object for an interface":
        target.shapes.append(point(8))  # type: ignore[arg-type]
    elif case == "a wrong object for a type":
        target.near.append(Square(name="q", side=1))  # type: ignore[arg-type]
    elif case == "a string for a list":
        target.shapes[1].tags = "ab"  # type: ignore[attr-defined]
    elif case == "a date refuses a number":
        target.day = 12  # type: ignore[assignment]
    elif case == "an enum refuses a string":
        target.color = "green"  # type: ignore[assignment]
    elif case == "an exception as a value":
        target.y = ValueError("stored")  # type: ignore[assignment]
    elif case == "an exception as a scalar that takes it":
        target.near[0].code = ValueError("stored")  # type: ignore[assignment]
    elif case == "a scalar serializing to null":
        target.near[0].code = Code("")
    elif case == "null item in the root list":
        root.points.append(None)  # type: ignore[arg-type]
    elif case == "a resolver raises":
        root.first = point(6, label="boom")
    elif case == "a resolver in a list raises":
        root.first = point(6, twins=[point(7), point(8, label="boom"), None])
    elif case == "a look-alike object":
        target.near.append(LookAlike())  # type: ignore[arg-type]
    elif case == "a look-alike of a type with interfaces":
        root.square = LookAlike()  # type: ignore[assignment]
    elif case == "an Int beyond 32 bits":
        target.near[1].x = 2 ** 31
    elif case == "an Int beyond 32 bits in a list":
        target.sizes = [1, -(2 ** 31) - 1]
    elif case == "a bool for a string":
        target.near[0].label = True  # type: ignore[assignment]
    elif case == "a pure resolver raises":
        target.label = "refuse"
    elif case == "an enum's value for its member":
        target.color = "red"  # type: ignore[assignment]
        target.near[0].color = "".join(["bl", "ue"])  # type: ignore[assignment]  # not "blue"
    return root


CASES = ["good", "int refuses a string", "null for a non-null leaf",
         "null item in a non-null list", "null item in a nullable list",
         "a wrong object for an interface", "a wrong object for a type", "a string for a list",
         "a date refuses a number", "an enum refuses a string", "an exception as a value",
         "an exception as a scalar that takes it", "a scalar serializing to null",
         "a look-alike object", "a look-alike of a type with interfaces", "a resolver raises",
         "a resolver in a list raises", "null item in the root list", "an Int beyond 32 bits",
         "an Int beyond 32 bits in a list", "a bool for a string", "a pure resolver raises",
         "an enum's value for its member"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("query", [EVERYTHING, PLAIN], ids=["mixed", "plain"])
@pytest.mark.parametrize("include", [True, False])
def test_same_data_and_errors_as_graphql_core(case: str, query: str, include: bool) -> None:
    plain, default = schemas()
    root = broken(case) if case != "good" else good()
    variables = {"with": include} if query is EVERYTHING else None
    got = outcome(plain, query, root, variables)
    expected = outcome(default, query, root, variables)
    assert got == expected
    assert json.dumps(got[0], default=str) == json.dumps(expected[0], default=str)  # key order
    if case == "good":
        assert got[1] == [] and got[0]["points"][0]["x"] == 1
    elif case in ("null item in a nullable list", "a look-alike object", "a bool for a string",
                  "an enum's value for its member"):
        assert got[1] == []  # neither is an error for graphql-core
    elif query is EVERYTHING:
        assert got[1], "each broken value is an error in a field the query asks for"


class CountingFields(PlainCompletionContext):
    """Counts graphql-core's field-by-field executions."""

    calls = 0

    def execute_field(self, *args: Any, **kwargs: Any) -> Any:
        CountingFields.calls += 1
        return super().execute_field(*args, **kwargs)


def test_plain_objects_are_not_completed_field_by_field() -> None:
    counting = toy_schema(CountingFields)
    root = good()
    CountingFields.calls = 0
    data, errors = outcome(counting, PLAIN, root)
    assert errors == [] and len(data["points"]) == 2
    assert CountingFields.calls == 3  # `points`, `first` and `square`, and nothing below
    CountingFields.calls = 0
    outcome(counting, EVERYTHING, root, {"with": True})
    # Through graphql-core go only the four root fields, the resolvers (double and later of
    # both points; checkedLater and checked of `first` and of its one twin) and `twins`, a list
    # of objects that are not plain throughout.
    assert CountingFields.calls == 4 + 2 * 2 + 2 + 2 + 1


LEAF_LIST = "{ points { near { x label y } } }"


def test_a_list_of_leaf_only_objects_is_completed_in_one_loop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Evidence lines: objects whose fields are strings and ints, completed by `leaf_rows`
    without a call per item; a value it does not take as it is sends the list the general way,
    with the same result."""
    items: list[Any] = []
    general = PlainCompletionContext._item

    def counting(self: Any, *args: Any) -> Any:
        items.append(args[2])
        return general(self, *args)

    monkeypatch.setattr(PlainCompletionContext, "_item", counting)
    plain, default = schemas()
    root = good()
    assert outcome(plain, LEAF_LIST, root) == outcome(default, LEAF_LIST, root)
    assert items == []
    # The loop gives each up: beyond an Int, a null where none may be (errors), a boolean for
    # an Int (1 for graphql-core); a null `y` it takes.
    for name, value, error in ("y", 2 ** 40, True), ("label", None, True), ("x", True, False), \
            ("y", None, False):
        root = good()
        setattr(root.points[0].near[1], name, value)
        got, expected = outcome(plain, LEAF_LIST, root), outcome(default, LEAF_LIST, root)
        assert got == expected and json.dumps(got[0]) == json.dumps(expected[0])  # 1, not true
        assert bool(got[1]) is error, name


def test_a_broken_value_in_a_plain_object_is_retried_field_by_field() -> None:
    counting = toy_schema(CountingFields)
    CountingFields.calls = 0
    root = good()
    root.first = point(6, near=[point(7)])
    root.first.x = None  # type: ignore[assignment]
    data, errors = outcome(counting, PLAIN, root)
    assert errors == [("Cannot return null for non-nullable field Point.x.", ["first", "x"])]
    assert data["first"] is None and data["points"][1]["label"] == "p5"
    assert data["points"][0]["near"][0]["code"] == "c2"
    assert CountingFields.calls == 4  # the three, and `first.x` on the retry


class Shouting(SchemaExtension):
    """Wraps every resolver (as graphql-core middleware): strings come out in capitals."""

    def resolve(self, _next: Any, root: Any, info: Any, *args: Any, **kwargs: Any) -> Any:
        value = _next(root, info, *args, **kwargs)
        return value.upper() if isinstance(value, str) else value


def test_an_extension_wrapping_resolvers_still_sees_every_field() -> None:
    shouting = toy_schema(PlainCompletionContext, Shouting)
    data, errors = outcome(shouting, PLAIN, good())
    assert errors == [] and data["points"][0]["label"] == "P1"
    assert data["points"][0]["near"][0]["code"] == "C2"


# -- every benchmark query on the example vault, through both -----------------------------------


@pytest.mark.integration
def test_benchmark_queries_give_the_same_results(example_graph: object,
                                                 test_database: TestDatabase) -> None:
    import neo4j

    settings = settings_for(test_database)
    plain = build_schema()
    default = build_schema()
    default.execution_context_class = StrawberryGraphQLCoreExecutionContext
    assert plain.execution_context_class is PlainCompletionContext
    driver = neo4j.GraphDatabase.driver(test_database.uri,
                                        auth=(test_database.user, test_database.password))
    examples: list[tuple[str, dict[str, Any]]] = [
        (query_bench.LINEAGE, {"k": S["FFTrainer"], "d": 3}),
        (query_bench.LINEAGE, {"k": S["FFTrainer"], "d": 10}),
        (query_bench.PATH, {"a": S["FFTrainer"], "b": S["GPipe"]}),
        (query_bench.CONTRADICTIONS, {"s": None}),
        (query_bench.CONTRADICTIONS_5, {"s": None}),
        (query_bench.SEARCH, {"t": "パイプライン"}),
        (query_bench.SEARCH, {"t": "ZeRO"}),
        (query_bench.PAGES, {"f": {}}),
        (query_bench.FOLD, {"l": 2, "d": "2026-12-31"}),
        ("""{ pages(first: 50) { nodes { __typename key title ... on Work { year authors {
             key } } ... on Person { affiliations { key } } } } }""", {}),
    ]

    def run(schema: strawberry.Schema, query: str, variables: dict[str, Any]) -> Any:
        graph = CountingGraphContext(driver, test_database.database, 30.0)
        result = asyncio.run(schema.execute(query, variables, ApiContext(graph, settings,
                                                                         False)))
        return result.data, [(e.message, e.path) for e in result.errors or []]

    try:
        for query, variables in examples:
            got = run(plain, query, variables)
            expected = run(default, query, variables)
            assert got == expected, (query, variables)
            assert json.dumps(got[0]) == json.dumps(expected[0])  # the same order of keys
            assert got[1] == [] and got[0] is not None, (query, got[1])
        lineage = run(plain, query_bench.LINEAGE, {"k": S["FFTrainer"], "d": 10})[0]["lineage"]
        assert len(lineage["nodes"]) > 5 and lineage["edges"][0]["provenance"]
    finally:
        driver.close()


def test_graphql_errors_keep_their_type() -> None:
    plain, _ = schemas()
    root = broken("null for a non-null leaf")
    result = asyncio.run(plain.execute(PLAIN, root_value=root))
    assert result.errors and all(isinstance(e, GraphQLError) for e in result.errors)


# -- plans shared between requests --------------------------------------------------------------


class CountingPlans(PlainCompletionContext):
    built = 0

    def _build_plan(self, *args: Any, **kwargs: Any) -> Any:
        CountingPlans.built += 1
        return super()._build_plan(*args, **kwargs)


def test_the_next_request_with_the_same_text_reuses_the_plans() -> None:
    counting = toy_schema(CountingPlans, ParserCache)  # one document per text, as served
    CountingPlans.built = 0
    first = outcome(counting, PLAIN, good())
    made = CountingPlans.built
    assert made >= 4  # Point, its shapes (each kind), its neighbours, Square
    second = outcome(counting, PLAIN, good())
    assert CountingPlans.built == made and second == first


def test_a_directive_with_a_variable_plans_per_request() -> None:
    plain = toy_schema(PlainCompletionContext, ParserCache)  # the same document every time
    query = """query($v: Boolean!) { first { x @include(if: $v) label
                                    ...Near @skip(if: $v) } }
               fragment Near on Point { near { x } }"""
    root = good()
    on = outcome(plain, query, root, {"v": True})[0]["first"]
    off = outcome(plain, query, root, {"v": False})[0]["first"]
    assert on == {"x": 1, "label": "p1"}
    assert off == {"label": "p1", "near": [{"x": 2}, {"x": 3}]}
    assert outcome(plain, query, root, {"v": True})[0]["first"] == on


@pytest.mark.parametrize("query, expected", [
    ("{ first { x label } }", False),
    ("{ first { x @include(if: true) } }", False),
    ("query($v: Boolean!) { first { x @include(if: $v) } }", True),
    ("query($v: Boolean!) { first { ...F } } fragment F on Point { x @skip(if: $v) }", True),
    ("query($v: Boolean!) { first { ... @include(if: $v) { x } } }", True),
    ("query($a: String) { first { x @tag(names: [\"b\", $a]) } }", True),
    ("query($a: String) { first { x @tag(by: {name: $a}) } }", True),
    ("{ first { x @tag(names: [\"b\"], by: {name: \"c\"}) } }", False),
    ("{ first { ...F(n: 1) } } fragment F($n: Int) on Point { x }", True),  # experimental
])
def test_which_documents_select_per_request(query: str, expected: bool) -> None:
    from graphql import parse

    document = parse(query, experimental_fragment_arguments=True)
    operation = next(d for d in document.definitions if isinstance(d, OperationDefinitionNode))
    fragments = [d for d in document.definitions if isinstance(d, FragmentDefinitionNode)]
    assert takes_variables(operation, fragments) is expected


def test_shared_plans_keep_the_latest_documents() -> None:
    from graphql import parse

    shared = SharedPlans(max_documents=2)
    schema = schemas()[0]._schema
    documents = [parse(f"{{ first {{ x a{i}: label }} }}") for i in range(3)]
    operations = [cast("OperationDefinitionNode", d.definitions[0]) for d in documents]
    tables = [shared.of(schema, op, []) for op in operations]
    assert all(t == {} for t in tables)
    assert shared.of(schema, operations[2], []) is tables[2]  # kept
    assert shared.of(schema, operations[0], []) is not tables[0]  # dropped, made again


# -- pure resolvers ---------------------------------------------------------------------------


def test_a_pure_resolver_takes_each_requests_arguments() -> None:
    plain = toy_schema(PlainCompletionContext, ParserCache)  # the same document, shared plans
    query = "query($n: Int) { points { firstNear(maxCount: $n) { x } } }"
    root = good()
    shown = [outcome(plain, query, root, {"n": n})[0]["points"][0]["firstNear"]
             for n in (1, None, 0, 1)]
    assert shown == [[{"x": 2}], [{"x": 2}, {"x": 3}], [], [{"x": 2}]]
    refused = outcome(plain, query, root, {"n": -1})
    assert refused == outcome(schemas()[1], query, root, {"n": -1})
    assert refused[1] and refused[1][0][0] == "refused"


@strawberry.type
class Resolvers:
    x: int

    @pure_field()
    def scaled(self, times_by: int, label: str | None = None) -> int:
        return self.x * times_by

    @pure_field()
    async def later(self) -> int:
        return self.x

    @pure_field()
    def with_info(self, info: strawberry.Info) -> int:
        return self.x

    @pure_field()
    def by_color(self, color: Color) -> int:
        return self.x

    @strawberry.field(metadata={PURE: True}, permission_classes=[CanRead])  # type: ignore[untyped-decorator]
    def guarded(self) -> int:
        return self.x

    @strawberry.field
    def unmarked(self, by: int) -> int:
        return self.x * by


def test_which_resolvers_count_as_pure() -> None:
    schema = strawberry.Schema(query=Resolvers)
    fields = schema._schema.type_map["Resolvers"].fields  # type: ignore[attr-defined]
    found = {name: pure_resolver(field) for name, field in fields.items()}
    assert found["scaled"] is not None
    function, names = found["scaled"]
    assert names == {"timesBy": "times_by", "label": "label"}
    assert function(Resolvers(x=3), times_by=2) == 6
    assert {name for name, f in found.items() if f is not None} == {"scaled"}
