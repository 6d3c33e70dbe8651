# README: `make quickstart` installs what the default simulation needs and runs it; `make test` runs the tests.
# Setup is idempotent (a stamp file makes re-runs near-instant). The quickstart's profile leaves out torch, ray and
# the dev tools; `make setup` (which test, lint and docs depend on) adds them to the same .venv.
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: help setup quickstart test test-slow lint docs

help:
	@echo "make setup       install everything into $(VENV) (idempotent)"
	@echo "make quickstart  set up what it needs (no torch, no dev tools), then run the default simulation on the embedded local model"
	@echo "make test        setup, then run the tests not marked slow (the developer's loop)"
	@echo "make test-slow   setup, then run the tests marked slow (CI runs both)"
	@echo "make lint        ruff check, ruff format --check, mypy, import-linter (the layer contracts), make docs"
	@echo "make docs        build the docs site (mkdocs.yml, docs/) into .cache/site, failing on any warning or bad link"

setup:
	@bash scripts/setup.sh

quickstart:
	@bash scripts/setup.sh quickstart
	$(VENV)/bin/squall run

# `make test` is the developer's loop: every test not marked `slow` (minutes). `make test-slow` runs the `slow` ones
# (each seconds to a minute: real process trees, agreement with other projects' code, the documented commands);
# .ci/run runs both. pytest exits 5 when it collected no tests: that is a failure, not a pass. One process per core
# (at most 4); an idle process takes tests queued on a busy one (worksteal); the 25 slowest printed, so a test that
# grows is seen (and marked `slow` when it belongs there).
PYTEST := $(PY) -m pytest -q -n auto --maxprocesses 4 --dist worksteal --durations 25

test: setup
	@bash scripts/setup_browser.sh
	@$(PYTEST) -m "not slow"; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: no tests were collected" >&2; fi; \
	exit $$rc

test-slow: setup
	@bash scripts/setup_browser.sh
	@$(PYTEST) -m slow; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test-slow: no tests were collected" >&2; fi; \
	exit $$rc

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	@$(MAKE) --no-print-directory docs

# --strict: a broken link, a page missing from the nav or a bad anchor fails the build (not with --quiet: it hides
# the warnings strict mode counts). NO_MKDOCS_2_WARNING: mkdocs-material's banner about its successor, every build.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir .cache/site
