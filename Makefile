# minigrad course: `make course` opens the lessons, `make test` runs every test.
# Both create the virtual environment in .venv on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: course test lessons assets bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@# The PyTorch oracle is opt-in: a plain `pip install torch` can pull a multi-GB CUDA build.
	@if [ -n "$$MINIGRAD_ORACLE" ]; then \
		$(BIN)/python -m pip install --quiet -e ".[oracle]" \
		|| echo "PyTorch oracle unavailable; oracle tests will be skipped"; \
	fi
	touch $(STAMP)

## Open the course in JupyterLab at the repository root, on notebook 01 (creates .venv on first use).
# Jupyter refuses to run as root unless told; containers and cloud machines often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

course: $(STAMP)
	$(BIN)/jupyter lab $(ALLOW_ROOT) --ServerApp.root_dir="$(CURDIR)" notebooks/01-derivatives.ipynb

## Run the whole test suite, notebooks included (creates .venv on first use).
test: $(STAMP)
	$(BIN)/python -m pytest

## List the lessons.
lessons: $(STAMP)
	$(BIN)/minigrad lessons

## Regenerate every figure in assets/ from the project's code (graphs laid out by graphviz-pure,
## the renderer every install has, so the figures do not depend on a system Graphviz).
assets: $(STAMP)
	MINIGRAD_DOT=$(BIN)/graphviz-pure $(BIN)/minigrad figures --to assets

## Run the benchmarks (on demand; they print ratios against a baseline timed in the same run).
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache
