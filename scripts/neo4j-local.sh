#!/usr/bin/env bash
# Start, stop or query the local Neo4j 5.26 Community server (no Docker) for dev and CI.
# Same code as `vaultkg neo4j start|stop|status` (api/neo4j_cli.py), run with the venv's python.
# Settings come from the environment / .env: NEO4J_PASSWORD, NEO4J_VERSION,
# VAULTKG_NEO4J_HOME, VAULTKG_NEO4J_BOLT_PORT, VAULTKG_NEO4J_HEAP, VAULTKG_NEO4J_PAGECACHE.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON="${VAULTKG_PYTHON:-.venv/bin/python}"

case "${1:-}" in
  start | stop | status) ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac

if [ ! -x "$PYTHON" ]; then
  echo "error: $PYTHON not found; run 'make venv' first" >&2
  exit 1
fi

exec "$PYTHON" -m api.neo4j_cli "$1"
