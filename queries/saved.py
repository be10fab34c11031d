"""Saved Cypher queries: `queries/cypher/*.cypher`, each one a file a person can paste into
Neo4j Browser and `vaultkg cypher NAME --param k=v` can run. A file documents itself in
`// @...` header lines, which this module reads:

    // @name lineage
    // @description What a work builds on ...
    // @param key string -- page key of the work           (required)
    // @param status string = null -- open or resolved      (optional, JSON default)
    // @columns child, parent, relation, ...
    // @example {"key": "..."}                               (used by the tests and the docs)

Parameter types: string, integer, float, boolean, date (an ISO date, passed as a string so the
query can say `date($from)` exactly as it would in Browser). Queries run in read transactions."""

from __future__ import annotations

import datetime as dt
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, LiteralString

import neo4j.graph
from pydantic import BaseModel

from loaders.errors import BadUserInput, NotFound
from queries.base import GraphContext
from queries.common import native

CYPHER_DIR = Path(__file__).resolve().parent / "cypher"
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
PARAM = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s+"
                   r"(?P<type>string|integer|float|boolean|date)"
                   r"(?:\s*=\s*(?P<default>.+?))?\s*(?:--\s*(?P<doc>.*))?$")


class ParamSpec(BaseModel):
    """One declared parameter."""

    name: str
    type: str
    required: bool
    default: Any = None
    description: str = ""


class SavedQuery(BaseModel):
    """A saved query: its header and its text."""

    name: str
    description: str
    params: list[ParamSpec]
    columns: list[str]
    examples: list[dict[str, Any]]
    text: str
    path: str


class SavedResult(BaseModel):
    """Rows of a saved query, with the columns it documents."""

    name: str
    columns: list[str]
    rows: list[dict[str, Any]]


def parse_file(path: Path) -> SavedQuery:
    """Read a .cypher file's header; a malformed header is a bug in the file (ValueError)."""
    text = path.read_text(encoding="utf-8")
    fields: dict[str, list[str]] = {}
    for line in text.splitlines():
        match = re.match(r"^//\s*@(\w+)\s*(.*)$", line)
        if match:
            fields.setdefault(match.group(1), []).append(match.group(2).strip())
    name = (fields.get("name") or [path.stem])[0]
    if name != path.stem or not NAME.match(name):
        raise ValueError(f"{path.name}: @name must be the file stem in snake_case")
    params = [_param(path, spec) for spec in fields.get("param", [])]
    columns = [c.strip() for c in ",".join(fields.get("columns", [])).split(",") if c.strip()]
    if not columns:
        raise ValueError(f"{path.name}: @columns is missing")
    examples = [json.loads(e or "{}") for e in fields.get("example", [])]
    return SavedQuery(name=name, description=" ".join(fields.get("description", [])),
                      params=params, columns=columns, examples=examples, text=text,
                      path=str(path))


def _param(path: Path, spec: str) -> ParamSpec:
    match = PARAM.match(spec)
    if not match:
        raise ValueError(f"{path.name}: bad @param {spec!r} (NAME TYPE [= JSON] [-- doc])")
    default = match.group("default")
    return ParamSpec(name=match.group("name"), type=match.group("type"),
                     required=default is None,
                     default=json.loads(default) if default is not None else None,
                     description=(match.group("doc") or "").strip())


@lru_cache(maxsize=1)
def _all(directory: str) -> dict[str, SavedQuery]:
    return {q.name: q for q in (parse_file(p) for p in sorted(Path(directory).glob("*.cypher")))}


def saved_queries(directory: Path = CYPHER_DIR) -> dict[str, SavedQuery]:
    """Every saved query by name (read once per process)."""
    return _all(str(directory))


def get(name: str, directory: Path = CYPHER_DIR) -> SavedQuery:
    """One saved query; NotFound names the ones that exist."""
    queries = saved_queries(directory)
    if name not in queries:
        raise NotFound(f"no saved query {name!r}; saved queries: {', '.join(sorted(queries))}")
    return queries[name]


def coerce(query: SavedQuery, raw: dict[str, Any]) -> dict[str, Any]:
    """Parameters as the query expects them: unknown or missing ones are refused, text from the
    command line is converted to the declared type, defaults fill the rest."""
    specs = {p.name: p for p in query.params}
    unknown = sorted(set(raw) - set(specs))
    if unknown:
        raise BadUserInput(f"{query.name} takes no parameter {', '.join(unknown)}; "
                           f"it takes: {', '.join(specs) or 'none'}")
    out: dict[str, Any] = {}
    for spec in query.params:
        if spec.name not in raw:
            if spec.required:
                raise BadUserInput(f"{query.name} needs --param {spec.name}=<{spec.type}>")
            out[spec.name] = spec.default
            continue
        out[spec.name] = _convert(spec, raw[spec.name])
    return out


def _convert(spec: ParamSpec, value: Any) -> Any:
    if value is None or (isinstance(value, str) and value == "null" and not spec.required):
        return None
    try:
        if spec.type == "integer":
            return int(value)
        if spec.type == "float":
            return float(value)
        if spec.type == "boolean":
            if isinstance(value, bool):
                return value
            if str(value).lower() not in ("true", "false"):
                raise ValueError(value)
            return str(value).lower() == "true"
        if spec.type == "date":
            return dt.date.fromisoformat(str(value)).isoformat()
    except ValueError:
        raise BadUserInput(f"--param {spec.name}: {value!r} is not a {spec.type}") from None
    return str(value)


def run(graph: GraphContext, query: SavedQuery, params: dict[str, Any]) -> SavedResult:
    """Run a saved query with raw parameters (coerced first) in a read transaction."""
    values = coerce(query, params)
    # The text is a file shipped in this package (never user input), so it may be run as is.
    text: LiteralString = query.text
    rows = graph.read(text, **values)
    return SavedResult(name=query.name, columns=query.columns,
                       rows=[{k: jsonable(v) for k, v in row.items()} for row in rows])


def jsonable(value: Any) -> Any:
    """A driver value as JSON-friendly data: temporals as ISO strings, nodes and
    relationships as maps with their labels/type, paths as lists of those."""
    value = native(value)
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, neo4j.graph.Node):
        return {"labels": sorted(value.labels),
                "properties": {k: jsonable(v) for k, v in value.items()}}
    if isinstance(value, neo4j.graph.Relationship):
        return {"type": value.type, "properties": {k: jsonable(v) for k, v in value.items()}}
    if isinstance(value, neo4j.graph.Path):
        return {"nodes": [jsonable(n) for n in value.nodes],
                "relationships": [jsonable(r) for r in value.relationships]}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)
