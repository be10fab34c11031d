"""The split of Neo4j's ingest CPU by layer (benchmarks/neo4j_profile.py): the layering rules on
hand-made stacks, and samples of a real recording of Neo4j during an ingest, which the layers
must cover (a Neo4j upgrade that renames its classes fails here)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from benchmarks.neo4j_profile import OTHER, layer_of, shares, split

SAMPLES = Path(__file__).parent / "data" / "neo4j_ingest_samples.json.gz"


def _event(frames: list[str], thread: str = "neo4j.BoltWorker-1") -> dict[str, Any]:
    """A `jfr print --json` execution sample; frames innermost first, as `type.method`."""
    def frame(name: str) -> dict[str, Any]:
        cls, _, method = name.rpartition(".")
        return {"method": {"type": {"name": cls}, "name": method}}
    return {"values": {"sampledThread": {"javaName": thread},
                       "stackTrace": {"truncated": False, "frames": [frame(f) for f in frames]}}}


COMMIT = ["org/neo4j/kernel/impl/api/KernelTransactionImplementation.commit"]
EXTRACT = ["org/neo4j/kernel/impl/api/KernelTransactionImplementation.extractCommands", *COMMIT]
SEEK = ["org/neo4j/kernel/impl/newapi/KernelRead.lockingNodeUniqueIndexSeek",
        "org/neo4j/cypher/internal/runtime/slotted/pipes/NodeIndexSeekSlottedPipe.internalCreate"]


def test_the_innermost_marker_decides() -> None:
    # A lock taken inside an index seek is a lock; the seek's own B-tree read is the seek.
    lock = ["org/neo4j/kernel/impl/locking/forseti/ForsetiClient.acquireShared", *SEEK]
    btree = ["org/neo4j/index/internal/gbptree/SeekCursor.next", *SEEK]
    assert layer_of(lock) == "locks"
    assert layer_of(btree) == "query: index seeks"
    # Transaction state visited while the commit builds its commands is the commit's.
    state = ["org/neo4j/kernel/impl/api/state/RelationshipStateImpl.accept",
             "org/neo4j/kernel/impl/api/state/TxState.accept", *EXTRACT]
    assert layer_of(state) == "commit: building commands"
    # A B-tree written by the commit's index updates is the index updates'.
    update = ["org/neo4j/index/internal/gbptree/GBPTreeWriter.put",
              "org/neo4j/kernel/impl/api/index/IndexingService.apply", *COMMIT]
    assert layer_of(update) == "commit: index updates"
    assert layer_of(["java/lang/Thread.run"]) == OTHER


def test_background_threads_by_name() -> None:
    assert layer_of(SEEK, "Lucene Merge Thread #3") == "full-text index merges (background)"
    assert layer_of([], "neo4j.StorageMaintenance-2") == "store maintenance (background)"


def test_split_counts_samples_and_shares_scale_the_cpu() -> None:
    events = [_event(SEEK), _event(SEEK), _event(EXTRACT), _event(["java/lang/Thread.run"]),
              {"values": {"sampledThread": {"javaName": "x"}, "stackTrace": None}}]
    counts = split(events)
    assert counts == {"query: index seeks": 2, "commit: building commands": 1, OTHER: 1}
    rows = shares(counts, 20.0)
    assert rows[0]["layer"] == "query: index seeks"
    assert rows[0]["share"] == 0.5 and rows[0]["cpu_s"] == 10.0
    assert sum(r["samples"] for r in rows) == 4
    assert all(r["cpu_s"] is None for r in shares(counts, None))


def _recorded() -> list[dict[str, Any]]:
    """Real samples: 120 drawn from a JFR recording of Neo4j 5.26 during a 10k-page ingest."""
    with gzip.open(SAMPLES, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    names: list[str] = doc["frames"]
    return [_event([names[i] for i in e["stack"]], e["thread"]) for e in doc["events"]]


def test_the_layers_cover_real_neo4j_stacks() -> None:
    # Neo4j's own class and method names: an upgrade that renames them leaves samples unsorted.
    counts = split(_recorded())
    total = sum(counts.values())
    assert total == 120
    assert counts[OTHER] / total < 0.05, counts
    for layer in ("commit: building commands", "commit: writing records",
                  "commit: index updates", "commit: transaction log", "query: index seeks",
                  "query: creating and setting properties", "locks",
                  "full-text index (Lucene)", "bolt: decoding parameters"):
        assert counts[layer] > 0, layer
