# Developer and CI entry points. `make test` is the one test command (CI runs it via .ci/run).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.vaultkg-installed
VAULT ?= examples/vault
PYTEST_ARGS ?=
# When set, `make test` writes pytest's own exit code there (make itself only ever exits 2).
PYTEST_RC_FILE ?=

.PHONY: venv neo4j-start neo4j-stop neo4j-status test lint demo bench

venv: $(STAMP)

# Reinstall only when pyproject.toml or constraints.txt is newer than the stamp. The versions
# are the ones constraints.txt pins (those the tests last passed with).
$(STAMP): pyproject.toml constraints.txt
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $@

# Rewrite constraints.txt from a clean install of the newest versions pyproject.toml allows
# (in a throwaway venv); run `make test` before committing it.
.PHONY: lock
lock:
	rm -rf .cache/lock-venv
	$(PYTHON) -m venv .cache/lock-venv
	.cache/lock-venv/bin/python -m pip install --quiet '.[dev]'
	{ sed -n '/^#/p' constraints.txt; \
	  .cache/lock-venv/bin/python -m pip freeze --exclude vaultkg; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf .cache/lock-venv

neo4j-start: venv
	scripts/neo4j-local.sh start

neo4j-stop: venv
	scripts/neo4j-local.sh stop

neo4j-status: venv
	scripts/neo4j-local.sh status

# The test fixture finds Neo4j itself: NEO4J_URI, else testcontainers, else a local server of
# its own (.neo4j/home-test, port 7697: the tests wipe it, never the default home).
test: venv
	@rc=0; $(VENV)/bin/pytest -q $(PYTEST_ARGS) || rc=$$?; \
	if [ -n "$(PYTEST_RC_FILE)" ]; then echo "$$rc" > "$(PYTEST_RC_FILE)"; fi; \
	exit $$rc

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

demo: venv
	$(VENV)/bin/vaultkg demo --vault $(VAULT)

# The benchmarks wipe their database: unless NEO4J_URI names one, a server of their own
# (.neo4j/home-bench, port 7705, sized for the 100k graph), started here and left running.
# BENCH_ARGS go to benchmarks.run (`make bench BENCH_ARGS=--quick`: a smoke run).
BENCH_ENV = VAULTKG_NEO4J_HOME=.neo4j/home-bench VAULTKG_NEO4J_BOLT_PORT=7705 \
	VAULTKG_NEO4J_HEAP=2g VAULTKG_NEO4J_PAGECACHE=3g
bench: venv
	@if [ -n "$$NEO4J_URI" ]; then own=""; else own="$(BENCH_ENV)"; \
	  env $$own scripts/neo4j-local.sh start; fi; \
	env $$own $(VENV)/bin/python -m benchmarks.run $(BENCH_ARGS) && \
	env $$own $(VENV)/bin/python -m benchmarks.bulk_bench

# Rewrite api/schema.graphql from the code (tests/test_api_schema.py fails when it is stale).
.PHONY: schema
schema: venv
	$(VENV)/bin/python -m api.schema

# Rebuild the /ui/ pages from ui/ (npm + esbuild) into api/static/ui/, which is committed.
.PHONY: ui
ui:
	cd ui && npm ci --no-audit --no-fund && npm run build
