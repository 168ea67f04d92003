# minigrad course: `make course` opens the lessons, `make test` runs every test.
# Both create the virtual environment in .venv on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ORACLE := $(VENV)/.oracle
# pip without its progress chatter, version nags or the editable-install notice.
PIP    := $(BIN)/python -m pip --quiet --disable-pip-version-check

.PHONY: course test oracle lessons assets bench wheel site clean

$(STAMP): pyproject.toml setup.py jupyter/minigrad-course.json
	@echo "[1/3] creating the virtual environment in $(VENV)"
	@$(PYTHON) -m venv $(VENV)
	@echo "[2/3] updating pip and the build tools"
	@$(PIP) install --upgrade pip "setuptools>=77"
	@echo "[3/3] installing minigrad and its dependencies (the first time takes a minute or two)"
	@# The editable install's notice ("be careful with folders named like the package") is
	@# meant for package authors; the course's first run prints only these steps.
	@PYTHONWARNINGS="ignore:Editable installation" $(PIP) install -e ".[dev]"
	@# JupyterLab's defaults for the course (no news pop-up, readings open rendered); a wheel
	@# installs this file itself, an editable install skips data files.
	@mkdir -p $(VENV)/share/jupyter/lab/settings/overrides.d
	@cp jupyter/minigrad-course.json $(VENV)/share/jupyter/lab/settings/overrides.d/
	@touch $(STAMP)
	@echo "ready: $(VENV)"

## PyTorch as a test oracle (opt-in: a plain `pip install torch` can pull a multi-GB CUDA build).
$(ORACLE): $(STAMP)
	@echo "installing PyTorch 2.13.0 (CPU build) as the tests' oracle"
	@PYTHONWARNINGS="ignore:Editable installation" $(PIP) install -e ".[oracle]" && touch $(ORACLE) \
		|| echo "PyTorch oracle unavailable; the oracle tests will be skipped"

oracle: $(ORACLE)

## Open the course in JupyterLab at the repository root, on notebook 01 (creates .venv on first use).
## JupyterLab keeps the terminal: Ctrl-C stops it; run `make test` in a second terminal.
## COURSE_LANG=zh: the Chinese course (中文), written into course-zh/ (the repository's own files
## are the English source) and opened there; your work in course-zh/ is never overwritten.
## (Not LANG: that is the locale, which the course reads too.)
COURSE_LANG ?=
course: $(STAMP)
	@if [ -n "$(COURSE_LANG)" ] && [ "$(COURSE_LANG)" != en ]; then \
		$(BIN)/minigrad course "$(CURDIR)/course-$(COURSE_LANG)" --lang $(COURSE_LANG); \
	else $(BIN)/minigrad course "$(CURDIR)"; fi

## Run the whole test suite, notebooks included (creates .venv on first use).
## MINIGRAD_ORACLE=1 also installs PyTorch and compares minigrad with it op by op.
test: $(STAMP)
	@if [ -n "$$MINIGRAD_ORACLE" ]; then $(MAKE) --no-print-directory oracle; fi
	$(BIN)/python -m pytest

## List the lessons.
lessons: $(STAMP)
	@$(BIN)/minigrad lessons

## Regenerate every figure in assets/ from the project's code (graphs laid out by graphviz-pure,
## the renderer every install has, so the figures do not depend on a system Graphviz).
## The figures whose labels carry words are drawn again with Chinese labels into assets/zh/.
assets: $(STAMP)
	MINIGRAD_DOT=$(BIN)/graphviz-pure $(BIN)/minigrad figures --to assets
	$(BIN)/minigrad figures --lang zh --to assets/zh

## Build the wheel into dist/ (it carries the lessons, notebooks and figures).
wheel: $(STAMP)
	$(PIP) wheel --no-deps --no-build-isolation -w dist .

## The course as a static website in build/site/html, in Chinese in build/site/html/zh (opens
## from file://; fetches nothing).
## Set-up, once: Sphinx, myst-nb and the book theme into .venv (the `site` extra) and MathJax 3
## from npm beside them. Each build then runs offline; notebooks are executed through a cache
## (build/site/cache), so a rebuild after a small change takes seconds.
SITE_TOOLS := $(VENV)/.site
MATHJAX    := $(VENV)/share/minigrad-site/mathjax/tex-svg-full.js
MATHJAX_VERSION := 3.2.2

# MathJax first (`site` lists it first; here as an order-only prerequisite): without npm, make
# stops before installing anything, saying how to get it.
$(SITE_TOOLS): $(STAMP) | $(MATHJAX)
	@echo "installing Sphinx, myst-nb and sphinx-book-theme (the site extra)"
	@PYTHONWARNINGS="ignore:Editable installation" $(PIP) install -e ".[site]" && touch $(SITE_TOOLS)

$(MATHJAX):
	@echo "installing MathJax $(MATHJAX_VERSION) (npm) for the site's offline math"
	@command -v npm >/dev/null || { \
		echo "make site needs npm (it comes with Node.js) once, to install MathJax; nothing was installed."; \
		echo "  Debian/Ubuntu: sudo apt-get install npm    macOS: brew install node"; \
		echo "  elsewhere: https://nodejs.org/en/download ; then run make site again"; exit 1; }
	@rm -rf $(VENV)/share/minigrad-site/npm && mkdir -p $(dir $(MATHJAX))
	@npm install --silent --no-save --ignore-scripts --no-audit --no-fund \
		--prefix $(VENV)/share/minigrad-site/npm mathjax@$(MATHJAX_VERSION)
	@cp $(VENV)/share/minigrad-site/npm/node_modules/mathjax/es5/tex-svg-full.js $(MATHJAX)
	@cp $(VENV)/share/minigrad-site/npm/node_modules/mathjax/LICENSE $(dir $(MATHJAX))LICENSE
	@rm -rf $(VENV)/share/minigrad-site/npm

site: $(MATHJAX) $(SITE_TOOLS)
	MINIGRAD_MATHJAX=$(MATHJAX) $(BIN)/python site/build.py

## Run the benchmarks (on demand; they print ratios against a baseline timed in the same run).
bench: $(STAMP)
	$(PIP) install -e ".[bench]"
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache build dist
