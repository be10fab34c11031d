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

# The test fixture finds Neo4j itself: NEO4J_URI, else testcontainers, else the local server.
test: venv
	@rc=0; $(VENV)/bin/pytest -q $(PYTEST_ARGS) || rc=$$?; \
	if [ -n "$(PYTEST_RC_FILE)" ]; then echo "$$rc" > "$(PYTEST_RC_FILE)"; fi; \
	exit $$rc

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

demo: venv
	$(VENV)/bin/vaultkg demo --vault $(VAULT)

bench: venv
	$(VENV)/bin/python -m benchmarks.run
	$(VENV)/bin/python -m benchmarks.bulk_bench

# Rewrite api/schema.graphql from the code (tests/test_api_schema.py fails when it is stale).
.PHONY: schema
schema: venv
	$(VENV)/bin/python -m api.schema

# Rebuild the /ui/ pages from ui/ (npm + esbuild) into api/static/ui/, which is committed.
.PHONY: ui
ui:
	cd ui && npm ci --no-audit --no-fund && npm run build
