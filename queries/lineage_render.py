"""A lineage result as diagram text: Mermaid (pastes into GitHub, Obsidian, mermaid.live) and
Graphviz DOT (`dot -Tsvg`). Pure functions of `queries.lineage.LineageResult`, so the GraphQL
API, the CLI and tests render the same text. Time runs left to right (parents, being earlier,
sit left of the works that build on them); every edge keeps its provenance (Mermaid comments,
DOT tooltips)."""

from __future__ import annotations

import re
from typing import NamedTuple

from queries.common import PageRecord
from queries.lineage import LineageEdgeRecord, LineageResult

SOURCE_ALIAS = re.compile(r"^@\d{4}__[^_]+__(.+)$")
MAX_LABEL = 32


class EdgeStyle(NamedTuple):
    mermaid_arrow: str
    dot_style: str
    color: str


# One look per relation, shared by both formats (and mirrored in ui/src/styles.js).
STYLES: dict[str, EdgeStyle] = {
    "BUILDS_ON": EdgeStyle("-->", "solid", "#1f4e79"),
    "EXTENDS": EdgeStyle("==>", "bold", "#1b7f3b"),
    "SUPERSEDES": EdgeStyle("==>", "bold", "#b42318"),
    "IMPROVES_ON": EdgeStyle("-->", "solid", "#c2620a"),
    "BASED_ON": EdgeStyle("-.->", "dotted", "#6941c6"),
    "COMPARES_WITH": EdgeStyle("-.-", "dashed", "#667085"),
}
FALLBACK = EdgeStyle("-->", "solid", "#1f4e79")


def short_name(page: PageRecord) -> str:
    """What to print on a node: the short part of a source alias (`@2019__NeurIPS__GPipe` ->
    `GPipe`), else the title up to a colon, else the title or key, shortened."""
    for alias in page.aliases:
        m = SOURCE_ALIAS.match(alias)
        if m:
            return _shorten(m.group(1))
    title = page.title or page.key
    head = title.split(":", 1)[0].strip()
    return _shorten(head if head and len(head) <= MAX_LABEL else title)


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 1].rstrip() + "…"


def _label(page: PageRecord) -> str:
    return f"{short_name(page)} ({page.year})" if page.year is not None else short_name(page)


def _provenance(edge: LineageEdgeRecord) -> list[str]:
    """`page:line mechanism (log entry)` per assertion, single-line."""
    out = []
    for p in edge.provenance:
        where = f"{p.page}:{p.line}" if p.line is not None else (p.page or "?")
        line = f"{where} {p.mechanism or ''}".strip()
        if p.introduced_by:
            line += f" ({p.introduced_by})"
        out.append(" ".join(line.split()))
    return out


def _ids(result: LineageResult) -> dict[str, str]:
    return {n.page.key: f"n{i}" for i, n in enumerate(result.nodes)}


# -- Mermaid -----------------------------------------------------------------------------------


def _mermaid_text(text: str) -> str:
    """Mermaid label text: entity codes for the characters its parser would take."""
    return (text.replace("#", "#35;").replace('"', "#quot;").replace("<", "#lt;")
            .replace(">", "#gt;"))


def _mermaid_comment(text: str) -> str:
    return " ".join(text.replace("%%", "% %").split())


def to_mermaid(result: LineageResult) -> str:
    """A `flowchart RL`: nodes labelled `Short name (year)`, the root highlighted, one arrow
    per typed edge child -> parent, styled by relation; provenance as `%%` comments."""
    ids = _ids(result)
    lines = ["flowchart RL",
             f"  %% lineage of {_mermaid_comment(result.root.key)}; edges point from a work "
             "to the work it builds on"]
    for n in result.nodes:
        lines.append(f'  {ids[n.page.key]}["{_mermaid_text(_label(n.page))}"]')
    by_relation: dict[str, list[int]] = {}
    for index, e in enumerate(result.edges):
        style = STYLES.get(e.relation, FALLBACK)
        label = e.relation.lower().replace("_", " ")
        for prov in _provenance(e):
            lines.append(f"  %% {ids[e.child]} {e.relation} {ids[e.parent]}: "
                         f"{_mermaid_comment(prov)}")
        lines.append(f'  {ids[e.child]} {style.mermaid_arrow}|"{label}"| {ids[e.parent]}')
        by_relation.setdefault(e.relation, []).append(index)
    for relation, indexes in by_relation.items():
        color = STYLES.get(relation, FALLBACK).color
        lines.append(f"  linkStyle {','.join(map(str, indexes))} stroke:{color},color:{color}")
    lines.append("  classDef root fill:#fff4ce,stroke:#b54708,stroke-width:2px")
    lines.append(f"  class {ids[result.root.key]} root")
    return "\n".join(lines) + "\n"


# -- Graphviz DOT ------------------------------------------------------------------------------


def _dot(text: str) -> str:
    """A DOT double-quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(result: LineageResult) -> str:
    """A `digraph` with a year axis (plaintext year nodes, one rank per year, older to the
    left), nodes `Short name\\nyear`, edges styled by relation with provenance as tooltips."""
    ids = _ids(result)
    years = sorted({n.page.year for n in result.nodes if n.page.year is not None})
    lines = [
        "digraph lineage {",
        f"  graph [rankdir=RL, fontname=Helvetica, labelloc=t, "
        f"label={_dot('lineage of ' + short_name(result.root))}];",
        '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname=Helvetica, '
        "fontsize=11];",
        "  edge [fontname=Helvetica, fontsize=9];",
    ]
    if years:
        lines.append("  node [shape=plaintext, style=\"\", fontcolor=\"#667085\"];")
        lines.extend(f'  "y{y}" [label="{y}"];' for y in years)
        for newer, older in zip(years[::-1], years[::-1][1:], strict=False):
            lines.append(f'  "y{newer}" -> "y{older}" [color="#d0d5dd", arrowhead=none];')
        lines.append('  node [shape=box, style="rounded,filled", fontcolor=black];')
    for n in result.nodes:
        root = n.page.key == result.root.key
        label = short_name(n.page) + (f"\n{n.page.year}" if n.page.year is not None else "")
        attrs = [f"label={_dot(label)}",
                 f"tooltip={_dot(n.page.title or n.page.key)}",
                 f'fillcolor="{"#fff4ce" if root else "#ffffff"}"']
        if root:
            attrs.append("penwidth=2")
        lines.append(f"  {ids[n.page.key]} [{', '.join(attrs)}];")
    for y in years:
        same = " ".join(ids[n.page.key] + ";" for n in result.nodes if n.page.year == y)
        lines.append(f'  {{ rank=same; "y{y}"; {same} }}')
    for e in result.edges:
        style = STYLES.get(e.relation, FALLBACK)
        tooltip = "\n".join(_provenance(e))
        attrs = [f"label={_dot(e.relation.lower().replace('_', ' '))}",
                 f"style={style.dot_style}", f'color="{style.color}"',
                 f'fontcolor="{style.color}"', f"tooltip={_dot(tooltip)}"]
        if e.relation == "COMPARES_WITH":
            attrs.append("arrowhead=none")
        lines.append(f"  {ids[e.child]} -> {ids[e.parent]} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
