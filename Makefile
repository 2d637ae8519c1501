# The README's commands. Everything installs itself into .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Debian tools some tests use: compose validation, Prometheus rule checks, the dashboard page.
DEBIAN_TOOLS := docker-compose:docker-compose promtool:prometheus chromium:chromium

.PHONY: demo test lint typecheck check tools services clean

$(VENV)/.base: pyproject.toml setup.py
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

# The full set: dev tools plus the optional vector/eval extras. torch comes first and
# pinned: `pip install torch==2.13.0` takes the CPU build from local disk.
$(VENV)/.full: $(VENV)/.base
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[dev,vector,eval]"
	touch $@

demo: $(VENV)/.base
	$(BIN)/cachecoh demo

test: $(VENV)/.full tools services
	$(BIN)/pytest -q

lint: $(VENV)/.full
	$(BIN)/ruff check services tests setup.py
	$(BIN)/ruff format --check services tests setup.py

typecheck: $(VENV)/.full
	$(BIN)/mypy

check: lint typecheck test

# Install missing Debian tools (needs root, as on the CI machines).
tools:
	@missing=""; for pair in $(DEBIAN_TOOLS); do \
	  cmd=$${pair%%:*}; pkg=$${pair##*:}; \
	  command -v $$cmd >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# Start the local Redis and Postgres if they are stopped (the machines run them already).
services:
	@redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || \
	  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
	@pg_isready -h 127.0.0.1 -p 5432 -q || \
	  pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start
	@for i in $$(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && redis-cli ping >/dev/null 2>&1 && exit 0; sleep 1; done; \
	  echo "Redis or Postgres did not come up" >&2; exit 1

clean:
	rm -rf $(VENV) var artifacts .pytest_cache .mypy_cache .ruff_cache
