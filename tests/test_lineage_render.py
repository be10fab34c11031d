"""Lineage as Mermaid and DOT text: escaping, styles, year ranks and provenance (pure), and the
`lineageDiagram` GraphQL field on the example vault."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from queries.common import PageRecord
from queries.lineage import LineageEdgeRecord, LineageNodeRecord, LineageResult, Provenance
from queries.lineage_render import short_name, to_dot, to_mermaid
from tests.api_server import Api, running, settings_for
from tests.db import TestDatabase
from tests.vaults import S


def _page(key: str, year: int | None, title: str | None = None,
          aliases: list[str] | None = None) -> PageRecord:
    return PageRecord(key=key, kind="Paper", year=year, title=title, aliases=aliases or [])


def _result() -> LineageResult:
    old = _page("@2019__X__Old Work", 2019, 'Old: a "quoted" <title>', ["@2019__X__Old"])
    new = _page("New", 2021, "New: builds on C:\\path")
    odd = _page("Undated#1", None, None)
    prov = Provenance(page="New", line=12, mechanism="frontmatter", text="builds_on: [[Old]]",
                      introduced_by="log/2026-01-02/01")
    edges = [
        LineageEdgeRecord(child="New", parent=old.key, relation="BUILDS_ON", provenance=[prov]),
        LineageEdgeRecord(child="New", parent=old.key, relation="COMPARES_WITH",
                          provenance=[prov.model_copy(update={"mechanism": "comparison"})]),
        LineageEdgeRecord(child="Undated#1", parent="New", relation="SUPERSEDES",
                          provenance=[Provenance(page="Undated#1", line=None, mechanism="prose")]),
    ]
    return LineageResult(root=new, truncated=False, edges=edges, nodes=[
        LineageNodeRecord(page=old, depth=1, side="ancestor"),
        LineageNodeRecord(page=new, depth=0, side="root"),
        LineageNodeRecord(page=odd, depth=1, side="descendant")])


def test_short_names() -> None:
    assert short_name(_page("k", 2019, "GPipe: Easy Scaling", ["@2019__NeurIPS__GPipe"])) == "GPipe"
    assert short_name(_page("k", 2020, "ZeRO: Memory Optimizations")) == "ZeRO"
    long = short_name(_page("k", 2021, "Efficient Large-Scale Language Model Training on GPUs"))
    assert long == "Efficient Large-Scale Language…" and len(long) <= 32
    assert short_name(_page("plain-key", None)) == "plain-key"


def test_mermaid_escapes_labels_styles_edges_and_keeps_provenance() -> None:
    text = to_mermaid(_result())
    lines = text.splitlines()
    assert lines[0] == "flowchart RL"
    assert '  n0["Old (2019)"]' in lines and '  n1["New (2021)"]' in lines
    assert '  n2["Undated#35;1"]' in lines  # `#` would start an entity code
    assert '  n1 -->|"builds on"| n0' in lines
    assert '  n1 -.-|"compares with"| n0' in lines  # dashed, no arrowhead
    assert '  n2 ==>|"supersedes"| n1' in lines
    assert "  %% n1 BUILDS_ON n0: New:12 frontmatter (log/2026-01-02/01)" in lines
    assert "  linkStyle 2 stroke:#b42318,color:#b42318" in lines
    assert lines[-1] == "  class n1 root"
    assert '"' not in "".join(re.findall(r'\["(.*)"\]', text))  # quotes inside labels encoded


def test_mermaid_label_with_quotes_and_brackets() -> None:
    result = _result()
    quoted = result.nodes[0].page.model_copy(update={"aliases": [], "title": 'A "b" <c>'})
    one = result.model_copy(update={"nodes": [result.nodes[0].model_copy(
        update={"page": quoted})], "edges": [], "root": quoted})
    assert '  n0["A #quot;b#quot; #lt;c#gt; (2019)"]' in to_mermaid(one).splitlines()


def test_dot_has_a_year_axis_styles_and_tooltips() -> None:
    text = to_dot(_result())
    assert text.startswith("digraph lineage {") and text.rstrip().endswith("}")
    assert '  "y2021" -> "y2019" [color="#d0d5dd", arrowhead=none];' in text
    assert '{ rank=same; "y2019"; n0; }' in text and '{ rank=same; "y2021"; n1; }' in text
    assert "Undated" in text and 'rank=same; "yNone"' not in text
    assert 'n1 [label="New\\n2021", tooltip="New: builds on C:\\\\path"' in text  # \ doubled
    assert 'tooltip="Old: a \\"quoted\\" <title>"' in text
    assert re.search(r'n1 -> n0 \[label="compares with", style=dashed.*arrowhead=none', text)
    assert re.search(r'n2 -> n1 \[label="supersedes", style=bold, color="#b42318"', text)
    assert 'tooltip="New:12 frontmatter (log/2026-01-02/01)"' in text
    assert text.count("{") == text.count("}")


@pytest.fixture(scope="module")
def api(example_graph: object, test_database: TestDatabase) -> Iterator[Api]:
    with running(settings_for(test_database)) as base:
        yield Api(base)


@pytest.mark.integration
def test_lineage_diagram_field(api: Api) -> None:
    q = """query($from: String!, $format: DiagramFormat!) {
      lineageDiagram(from: $from, direction: ANCESTORS, format: $format) }"""
    mermaid = api.data(q, **{"from": "@2025__arXiv__FFTrainer", "format": "MERMAID"})
    text = mermaid["lineageDiagram"]
    assert text.startswith("flowchart RL\n")
    assert '["GPipe (2019)"]' in text and '["FFTrainer (2025)"]' in text
    assert len(re.findall(r"^  n\d+ -->\|", text, flags=re.M)) == 17  # every BUILDS_ON edge
    assert "LLM分散学習:45 arrow (log/2026-06-17/02)" in text
    dot = api.data(q, **{"from": S["FFTrainer"], "format": "DOT"})["lineageDiagram"]
    assert dot.startswith("digraph lineage {")
    for year in (2019, 2020, 2021, 2023, 2025):
        assert f'{{ rank=same; "y{year}";' in dot
    assert api.error_codes(q, **{"from": "NoSuchWork", "format": "DOT"}) == ["NOT_FOUND"]
