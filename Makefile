# mus-arena: `make demo` sets up and runs the demo; `make test` sets up and runs all tests.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev

.PHONY: setup setup-dev setup-lang demo test checks pytest lint lint-proto typecheck bench proto clean

# setup: what the arena needs to run (the demo); setup-dev adds the test and lint tools.
setup: $(STAMP)

$(STAMP): pyproject.toml sdk/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ./sdk -e .
	touch $(STAMP)

setup-dev: $(DEVSTAMP)

# The tests of tests/cluster run leagues on a real local Ray cluster: Ray is a dev dependency.
# The SDK's rl and openspiel extras (PettingZoo, Gymnasium, numpy, OpenSpiel: docs/rl.md)
# are tested by tests/rl.
$(DEVSTAMP): $(STAMP) pyproject.toml sdk/pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev,ray]' -e './sdk[rl,openspiel]'
	touch $(DEVSTAMP)

# Ends with the path of the league's HTML report (mus report).
demo: setup
	d=out/demo-$$(date +%Y%m%d-%H%M%S) && $(VENV)/bin/mus league leagues/demo.toml --out $$d && $(VENV)/bin/mus report $$d

lint: setup-dev
	$(VENV)/bin/ruff check arena sdk/mus_core sdk/mus_sdk sdk/mus_rl bots tests bench

# Everything the arena and the SDK ship, strict (pyproject.toml): MYPYPATH finds the SDK
# from its source folder (mypy cannot follow the editable install's import hook).
typecheck: setup-dev
	MYPYPATH=sdk $(VENV)/bin/mypy arena
	cd sdk && ../$(VENV)/bin/mypy mus_core mus_sdk mus_rl

# buf ships in the npm package @bufbuild/buf; the proto must stay lint-clean (buf STANDARD + COMMENTS)
# and wire-compatible with the last release (proto/releases/, docs/compatibility.md).
PROTO_RELEASE := releases/v0.1.0.binpb

lint-proto: setup-dev setup-lang
	@command -v npx >/dev/null || { echo 'lint-proto needs Node.js and npm (npx): apt-get install nodejs npm'; exit 1; }
	cd proto && npx --yes @bufbuild/buf@1.75.0 lint
	cd proto && npx --yes @bufbuild/buf@1.75.0 breaking --against $(PROTO_RELEASE)
	$(PY) sdk/generate.py --check

# Node.js, a C++ gRPC toolchain (Debian packages; installed when run as root) and the
# builds of bots/js and bots/cpp, which the tests in tests/lang play against.
setup-lang:
	bash bots/setup-toolchains.sh

# make test: the two setups side by side, then the tests side by side with ruff, buf and
# mypy (a sub-make with -j: on a busy CI machine the checks' minute overlaps the tests';
# any failure still fails make test). pytest --dist loadfile: each test file on one worker
# (its module fixtures, e.g. a league played once for many tests, are shared as in a
# serial run); one worker more than the CPUs, since a test spends much of its time
# waiting on the bot processes it started (TEST_WORKERS=N to choose).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))

test:
	$(MAKE) --no-print-directory -j4 checks pytest

checks: lint lint-proto typecheck

pytest: setup-dev setup-lang
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

bench: setup-dev
	$(PY) bench/engine.py
	$(PY) bench/protocol.py
	$(PY) bench/protocol.py --load $$(nproc)
	$(PY) bench/polling.py
	$(PY) bench/strength.py --bot bots/rulebot --against random --pairs 50 --out $$(mktemp -d)/strength.jsonl
	$(PY) bench/league.py
	$(PY) bench/scaling.py
	$(PY) bench/cluster.py
	$(PY) bench/report.py
	$(PY) bench/standings.py

proto: setup-dev
	$(PY) sdk/generate.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
