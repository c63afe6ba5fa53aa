# Two commands for users: `make demo` and `make test`. Both install into .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test lint-workflows chromium bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m instruction_gate demo $(if $(CANDIDATE),--candidate "$(CANDIDATE)",) $(if $(BLAME),--blame,)

test: $(STAMP) lint-workflows chromium
	$(BIN)/python -m pytest

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

bench: $(STAMP)
	for b in benchmarks/*.py; do $(BIN)/python "$$b" || exit 1; done

clean:
	rm -rf $(VENV) demo-output .test-artifacts
