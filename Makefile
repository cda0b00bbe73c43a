# make run   - set up .venv if needed, migrate, start the whole site (daphne, Celery, embedded Redis)
# make test  - set up .venv if needed, run the test suite
# make bench - run the benchmarks (engine scoring; replay generation; server CPU per move; a short
#              live run: 1 table of 4 socket clients for 20 s on the real stack, bench/live.py)

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# More workers than cores: many tests wait on real processes and timers.
PYTEST_WORKERS ?= 4

.PHONY: run test bench venv migrate

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed; set PYTHON=python3.x")'
	$(PYTHON) -m venv $(VENV)

# Re-install only when the requirements change.
$(STAMP): requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	@touch $(STAMP)

venv: $(STAMP)

migrate: $(STAMP)
	@mkdir -p var
	$(PY) manage.py migrate --noinput

run: migrate
	exec $(PY) -m mahjong_site.devserver

test: $(STAMP)
	$(PY) -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) bench/engine.py
	$(PY) bench/replay.py
	$(PY) bench/move_cpu.py --moves 200
	$(PY) bench/live.py --tables 1 --duration 20
