"""Edge types look different in the lineage picture: on the English lab vault (builds_on,
extends, supersedes, improves_on, compares_with all occur) each relation is drawn with its own
colour and dash, matching the legend."""

from __future__ import annotations

from collections.abc import Iterator

import neo4j
import pytest

from graph.ingest import ingest
from tests.api_server import running, settings_for
from tests.browser import Visit, chromium
from tests.db import TestDatabase
from tests.vaults import ENGLISH_LAB

pytestmark = pytest.mark.integration


@pytest.fixture
def visit(clean_db: neo4j.Driver, neo4j_database: str,
          test_database: TestDatabase) -> Iterator[Visit]:
    ingest(clean_db, neo4j_database, ENGLISH_LAB)
    with running(settings_for(test_database)) as base, chromium() as browser:
        v = Visit(browser, base)
        yield v
        v.close()


def test_each_relation_has_its_own_look(visit: Visit) -> None:
    drawn = visit.open("/ui/lineage?from=@2021__ICLR__ViT&direction=BOTH")
    relations = {e["relation"] for e in drawn["edges"]}
    assert {"BUILDS_ON", "EXTENDS", "SUPERSEDES", "IMPROVES_ON", "COMPARES_WITH"} <= relations
    looks = visit.page.evaluate("""() => {
      const out = {};
      for (const g of document.querySelectorAll('g.edge')) {
        const line = g.querySelector('path.line');
        out[g.dataset.relation] = [line.getAttribute('stroke'),
          line.getAttribute('stroke-dasharray'), line.getAttribute('marker-end')];
      }
      return out;
    }""")
    assert len({tuple(v[:2]) for v in looks.values()}) == len(looks)  # all distinct
    assert looks["BUILDS_ON"][1] is None and looks["EXTENDS"][1] is None  # solid
    assert looks["COMPARES_WITH"][1] is not None  # dashed
    assert looks["COMPARES_WITH"][2] is None  # a comparison has no direction to point
    assert looks["SUPERSEDES"][2] == "url(#arrow-SUPERSEDES)"
    absent = visit.page.locator(".legend-item.absent").all_text_contents()
    assert absent == ["based on"]  # the one relation this lineage lacks

    # a comparison's provenance names its mechanism
    compares = next(e for e in drawn["edges"] if e["relation"] == "COMPARES_WITH")
    visit.hover_edge(compares["child"], compares["parent"], "COMPARES_WITH")
    card = visit.page.locator(".tooltip").inner_text()
    assert "compares with" in card and "comparison" in card
    assert visit.errors == [] and visit.outside == []
