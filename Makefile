# lakerep — the two commands a new user needs (see README.md):
#   make demo   installs everything, generates a workload and runs the pipeline on embedded Spark
#   make test   installs everything and runs the tests (all but make scenarios, cluster, and all but
#               a slice of make crashpoints) and the linters
# plus `make bench SIZE=... CYCLE=... TABLES=... REFRESH=...` for figures (history of SIZE log records,
# a cycle of CYCLE, a cycle with TABLES registered, a member refreshed from REFRESH rows),
# `make bench-transaction ROWS=...` (one transaction of ROWS rows landed from a PostgreSQL slot, with
# the peak memory), `make bench-live RATE=... DURATION=...` (a session keeping up with pgbench at
# RATE transactions/s on a live PostgreSQL),
# `make scenarios` (the fixed crash scenarios), `make crashpoints` (a kill at every durable step),
# `make soak COUNT=...` (that many more scenarios) and
# `make cluster` (the runner and plain dbt on a local Spark cluster).

SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export LAKEREP_HOME ?= $(CURDIR)/.lakerep
export DBT_PROFILES_DIR := $(CURDIR)/profiles
export PYTHONUNBUFFERED := 1

SIZE ?= 100000
CYCLE ?= 10000
SEED ?= 42
TABLES ?= 50
REFRESH ?= 200000
RECORDS ?= 20000
COUNT ?= 200
FIRST_SEED ?= 1001
ROWS ?= 1000000
RATE ?= 500
DURATION ?= 300

.PHONY: install demo test lint bench bench-transaction bench-live scenarios crashpoints soak cluster clean

install: $(STAMP)

$(STAMP): pyproject.toml tests/debezium/engine/pom.xml
	@# PostgreSQL's server, for the tests of a PostgreSQL source (Debian's package)
	@ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@# Delta's jars, resolved once here: two test workers resolving them into an empty Ivy cache
	@# at once both fail
	$(BIN)/python -m lakerep.delta_jars
	@# The embedded JVM's classes, archived once: every later JVM start maps them (class_archive.py)
	$(BIN)/python -m lakerep.class_archive
	@# Debezium's embedded engine, for the test of real Debezium output (Debian's maven fetches it)
	@command -v mvn >/dev/null || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven; }
	mvn -q -f tests/debezium/engine/pom.xml dependency:copy-dependencies \
		-DoutputDirectory=$(CURDIR)/$(VENV)/debezium-jars
	touch $(STAMP)

demo: install
	$(BIN)/lakerep demo --records $(RECORDS) --seed $(SEED)

lint: install
	$(BIN)/ruff check lakerep tests
	$(BIN)/ruff format --check lakerep tests
	$(BIN)/sqlfluff lint models data-tests

# Two workers, each with its own lake and JVM, a test file per worker at a time (its module
# fixtures build one lake), a crash scenario alone (tests/conftest.py's scheduler): one
# worker leaves about a third of the 2 cores idle (vmstat).
test: install lint
	$(BIN)/pytest -q -n 2 --dist loadfile

# The code a scenario ran on, as the data tests' schedule fingerprints it (PROJECT_PARTS and
# RUNTIME_PACKAGES of lakerep/data_test_schedule.py; not profiles/, the docs or the tests):
# scenarios of one fingerprint and one profiles/, in one session or several, are of the same code.
PROJECT = $$($(BIN)/python -c 'from lakerep.data_test_schedule import project_fingerprint; print(project_fingerprint()[:12])')

# Every seed of the fixed set, and the proof that their checks fail on a tampered lake (-m "":
# none deselected), then every crash point of every run kind (make crashpoints). Not in `make
# test`: with them CI does not fit its time on a slow day (ADR 0005, ADR 0013).
scenarios: install
	@echo "fixed crash scenarios on project $(PROJECT)"
	$(BIN)/pytest -q -n 2 --dist loadfile -m "" tests/scenarios/test_crash_scenarios.py \
		tests/scenarios/test_checks_fail_on_a_tampered_lake.py
	$(MAKE) crashpoints

# A kill -9 at every durable step of each kind of run (KIND=name: one kind, as
# tests/crashpoints/run_kinds.py names them), each followed by the operator's restart and the
# kind's checks against the oracle: a JVM start and a cold cycle a point, so `make test` runs a
# slice of five points (docs/decisions/0013-crash-points.md).
crashpoints: install
	$(BIN)/pytest -q -s -m crashpoints tests/crashpoints $(if $(KIND),-k "$(KIND)")

# The scale-out stories, each on a standalone cluster of its own (master, worker and a Connect or
# Thrift server, three JVMs): the runner through Spark Connect, `dbt build` through Thrift. Left
# out of `make test`, like the fixed crash scenarios, so that CI fits its time on a slow day (ADR
# 0010). Run them before resolving a change to the runner's remote path, its locks in the lake,
# the profile or spark_cluster.py.
cluster: install
	$(BIN)/pytest -q -n 2 --dist loadfile -m "cluster or thrift" tests/cluster tests/thrift

soak: install
	@echo "soak of $(COUNT) seeds from $(FIRST_SEED) on project $(PROJECT)"
	$(BIN)/lakerep scenarios --count $(COUNT) --first-seed $(FIRST_SEED)

bench: install
	$(BIN)/lakerep bench --records $(SIZE) --cycle-records $(CYCLE) --seed $(SEED) --tables $(TABLES) \
		--refresh-rows $(REFRESH)

bench-transaction: install
	$(BIN)/python tests/sources/bench_one_big_transaction.py --rows $(ROWS)

bench-live: install
	$(BIN)/python tests/sources/bench_live.py --rate $(RATE) --seconds $(DURATION)

clean:
	rm -rf .lakerep target logs
