# Two commands for users: `make demo` and `make test`. Both install into .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install sandbox demo test lint-workflows live-cli chromium bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# Agent runs are confined with bubblewrap (README, "Security"); installed from the distribution.
sandbox:
	@command -v bwrap >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; }

demo: $(STAMP) sandbox
	$(BIN)/python -m instruction_gate demo $(if $(CANDIDATE),--candidate "$(CANDIDATE)",) $(if $(BLAME),--blame,)

# Two workers (pytest-xdist): the suite is mostly waiting on subprocesses, and CI has two cores.
TEST_WORKERS ?= 2
test: $(STAMP) sandbox lint-workflows live-cli chromium
	$(BIN)/python -m pytest -n $(TEST_WORKERS)

# tests/test_chart.py screenshots the chart in headless Chromium; with CI set it must run, so CI
# installs Chromium (Debian/Ubuntu: apt) when none is on PATH. Outside CI the test skips without it.
chromium:
	@if [ -n "$$CI" ] && ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null \
		&& ! command -v google-chrome >/dev/null && ! command -v google-chrome-stable >/dev/null; then \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; \
	fi

# GitHub's own tooling on the action and every workflow; any finding fails.
WORKFLOWS := $(wildcard .github/workflows/*.yml examples/workflows/*.yml tests/workflows/*.yml)
lint-workflows: $(STAMP)
	$(BIN)/check-jsonschema --builtin-schema vendor.github-actions action.yml
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows $(WORKFLOWS)
	$(BIN)/zizmor --offline --quiet --config .github/zizmor.yml . $(WORKFLOWS)
	$(BIN)/actionlint $(WORKFLOWS)

# The real agent CLIs the conformance tests drive (tests/live_cli/package-lock.json pins them
# with integrity hashes); local to the repository, never global. Install scripts are not run:
# the tests call Claude Code's platform binary directly. Under CI a failed install fails the run.
LIVE_CLI := tests/live_cli
$(LIVE_CLI)/node_modules/.package-lock.json: $(LIVE_CLI)/package-lock.json
	@cd $(LIVE_CLI) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error \
	  || { echo "live CLIs: 'npm ci' in $(LIVE_CLI) failed; the conformance tests need node, npm and the npm registry" >&2; \
	       if [ -n "$$CI" ]; then exit 1; fi; }
live-cli: $(LIVE_CLI)/node_modules/.package-lock.json

# Every benchmark, one table of figures against benchmarks/reference.json (flags >25% worse).
bench: $(STAMP) sandbox
	$(BIN)/python benchmarks/report.py --out benchmarks/REPORT.md

clean:
	rm -rf $(VENV) demo-output $(LIVE_CLI)/node_modules .test-artifacts
