# The two set-up commands: `make run` starts the bot, `make test` runs every test.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,openai]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/tanka-bot serve $(ARGS)

test: $(STAMP)
	$(BIN)/ruff check bot tools fakes tests bench
	$(BIN)/ruff format --check bot tools fakes tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/deptry .
	$(BIN)/pytest -q $(PYTEST_ARGS)

bench: $(STAMP)
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
