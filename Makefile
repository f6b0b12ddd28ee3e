# Everyday commands. `make install` once, then `make test` / `make lint` / `make integration`.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install test unit integration lint format typecheck docs notebooks wheel clean

install:  ## a virtualenv with the package (editable) and every development tool
	$(PYTHON) -m venv $(VENV) && $(BIN)/pip install -e '.[dev]'

test:  ## the whole suite (PostgreSQL tests skip unless CRITIC_LOOP_TEST_POSTGRES_URL is set)
	$(BIN)/pytest

unit:  ## fast tests with scripted models only
	$(BIN)/pytest tests/unit

integration:  ## tests against real components: HTTP model server, SQLite, langgraph dev, CLI
	$(BIN)/pytest tests/integration

lint:  ## ruff, ruff format and mypy --strict
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	MYPY=$(BIN)/mypy .ci/typecheck

docs:  ## the documentation site into site/ (a broken link or a page missing from nav fails)
	$(BIN)/mkdocs build --strict

# BASE_URL= an OpenAI-compatible server to run them on instead (its first model, every role);
# NOTEBOOKS= the notebook files to run (default: all)
notebooks:  ## run every notebook on the embedded local model (the local extra) and save its outputs
	env -u OPENAI_BASE_URL -u CRITIC_LOOP_BASE_URL -u OPENAI_API_KEY -u GOOGLE_API_KEY -u GEMINI_API_KEY \
		-u CRITIC_LOOP_WORKER_MODEL -u CRITIC_LOOP_CRITIC_MODEL $(if $(BASE_URL),OPENAI_BASE_URL=$(BASE_URL)) \
		$(BIN)/python -m tests.support.notebooks $(NOTEBOOKS)

format:
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

wheel:  ## build the wheel into dist/
	$(BIN)/pip wheel --no-deps -w dist .

clean:
	rm -rf build dist site .typecheck .mypy_cache .ruff_cache .pytest_cache *.egg-info
