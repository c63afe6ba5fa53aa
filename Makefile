# Two commands for users: `make demo` and `make test`. Both install into .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m instruction_gate demo $(if $(CANDIDATE),--candidate "$(CANDIDATE)",)

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	for b in benchmarks/*.py; do $(BIN)/python "$$b" || exit 1; done

clean:
	rm -rf $(VENV) demo-output
