# The front door. `make run` starts the platform, `make test` runs the whole suite; both create
# .venv and install what they need first, and both are safe to run again.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export PYTHONPATH := $(CURDIR)/platform:$(CURDIR)
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: install run test check image bench clean help

help:
	@echo "make run    - start the platform on http://127.0.0.1:8000 (SQLite, embedded worker)"
	@echo "make test   - run the whole test suite"
	@echo "make check  - ruff, ruff format --check, mypy strict (games, sandbox, platform, arena_cli)"
	@echo "make image  - build the sandbox image agents run in"
	@echo "make bench  - run the benchmarks in bench/ (JSON figures)"

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

install: $(STAMP)

run: install
	$(PY) manage.py arena_run

test: install
	@# Without the image the docker tests skip locally and fail under CI=true: never silently.
	@if docker info >/dev/null 2>&1; then $(MAKE) --no-print-directory image-if-missing \
	  || echo "make test: could not build the sandbox image; docker tests will skip (fail in CI)"; fi
	$(PY) -m pytest $(PYTEST_ARGS)

check: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy games sandbox platform arena_cli

image: install
	$(PY) -m sandbox.image.build

image-if-missing: install
	$(PY) -m sandbox.image.build --if-missing

bench: install
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache var
