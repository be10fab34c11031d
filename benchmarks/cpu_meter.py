"""CPU per request, split by process: the load generator (this process), the API server and
Neo4j. On a machine whose cores the three share, latency under concurrency is bounded by that
sum: N closed-loop clients on C cores cannot average under N x CPU / C per request (Little's
law), so the split says which process a target waits on."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks import common


@dataclass(frozen=True)
class CpuSample:
    client: float
    api: float | None
    neo4j: float | None


class CpuMeter:
    """Samples the three processes' CPU seconds; `api_pid` is the API server's (its workers
    are counted with it), None when only the driver runs."""

    def __init__(self, api_pid: int | None, neo4j_pid: int | None) -> None:
        self.api_pid = api_pid
        self.neo4j_pid = neo4j_pid

    @classmethod
    def local(cls, api_pid: int | None) -> CpuMeter:
        """The local Neo4j server's process is found from VAULTKG_NEO4J_HOME; another server's
        CPU is not visible and stays None."""
        return cls(api_pid, common.server_pid())

    def sample(self) -> CpuSample:
        return CpuSample(
            # This process's threads, the driver's too; finished children (the ingest's parse
            # workers) are not part of a query's cost.
            client=common.cpu_s(children=False),
            api=None if self.api_pid is None else common.process_tree_cpu_s(self.api_pid),
            neo4j=None if self.neo4j_pid is None else common.process_cpu_s(self.neo4j_pid))


def per_request_ms(before: CpuSample, after: CpuSample, requests: int
                   ) -> dict[str, float | None]:
    """Milliseconds of CPU per request in each process between two samples, and their total
    (None when a process could not be seen at both ends, or nothing was measured)."""

    def share(a: float | None, b: float | None) -> float | None:
        if a is None or b is None or requests <= 0:
            return None
        return round((b - a) * 1000 / requests, 3)

    parts = {"client": share(before.client, after.client),
             "api": share(before.api, after.api),
             "neo4j": share(before.neo4j, after.neo4j)}
    seen = [v for v in parts.values() if v is not None]
    return {**parts, "total": round(sum(seen), 3) if seen else None}
