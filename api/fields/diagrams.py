"""Query field `lineageDiagram`: the same lineage as `lineage(...)`, as Mermaid or Graphviz DOT
text to paste into a README, an Obsidian note or `dot -Tsvg` (renderers: queries/
lineage_render.py)."""

from __future__ import annotations

from enum import Enum

import strawberry

from api.decorators import read_field
from api.fields.lineage import DepthArg, FromArg, RelationsArg
from api.inputs import LineageDirection
from api.types import Ctx
from queries import lineage as lineage_queries
from queries.lineage_render import to_dot, to_mermaid


@strawberry.enum(description="Diagram text formats.")
class DiagramFormat(Enum):
    MERMAID = "mermaid"
    DOT = "dot"


RENDERERS = {DiagramFormat.MERMAID: to_mermaid, DiagramFormat.DOT: to_dot}


@strawberry.type
class DiagramQueries:
    @read_field(description="A work's lineage as diagram text: MERMAID (`flowchart RL`, "
                            "provenance as %% comments) or DOT (a year axis, provenance as "
                            "edge tooltips). Same arguments as `lineage`.")
    async def lineage_diagram(self, info: Ctx, from_: FromArg,
                              direction: LineageDirection = LineageDirection.ANCESTORS,
                              relations: RelationsArg = None,
                              max_depth: DepthArg = lineage_queries.DEFAULT_DEPTH,
                              format: DiagramFormat = DiagramFormat.MERMAID) -> str:
        found = await info.context.run(
            lineage_queries.lineage_of_work, from_, lineage_queries.Direction(direction.value),
            [r.value for r in relations] if relations else None, max_depth)
        info.context.spend(len(found.nodes) + len(found.edges))
        return RENDERERS[format](found)
