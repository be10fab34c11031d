"""Empty a database (tests and benchmarks start from nothing); indexes and constraints stay."""

from __future__ import annotations

from typing import LiteralString

import neo4j

from graph.connection import write_batched

# Relationships first: `DETACH DELETE` in node batches holds every relationship of a batch's
# nodes in one transaction and runs out of transaction memory on big graphs (a 100k vault's
# popular concepts have 100k relationships). `IN TRANSACTIONS` needs an auto-commit session.
WIPE_ALL: tuple[LiteralString, ...] = (
    "MATCH ()-[r]->() CALL { WITH r DELETE r } IN TRANSACTIONS OF 20000 ROWS",
    "MATCH (n) CALL { WITH n DELETE n } IN TRANSACTIONS OF 20000 ROWS")


def wipe(driver: neo4j.Driver, database: str) -> None:
    """Delete every node and relationship, in batches."""
    for statement in WIPE_ALL:
        write_batched(driver, database, statement)
