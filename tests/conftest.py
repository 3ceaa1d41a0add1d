"""Tune grpcio in the test process as the arena tunes its own (arena/remote/grpc_tuning.py),
before any test module imports grpc: the ``run.grpc_experiments`` of matches played in
this process and of ``mus`` subprocesses (which inherit its environment) then agree
whatever order the test files run in (a file importing grpc first used to leave this
process untuned while every ``mus`` it started tuned itself)."""

import signal
import threading
from collections.abc import Iterator

import pytest

from arena.remote import grpc_tuning

grpc_tuning.tune()


# The slowest test files (measured with --durations on a busy 2-CPU machine), started
# first: make test gives each file to one pytest-xdist worker in collection order, and a
# slow file started last keeps the run going after the other workers have finished.
SLOW_FILES_FIRST = (
    "tests/cluster/test_ray_league.py",
    "tests/league/test_league.py",
    "tests/adversarial/test_arena_pause.py",
    "tests/adversarial/test_results_integrity.py",
    "tests/adversarial/test_sandbox.py",
    "tests/league/test_table_sizes.py",
    "tests/adversarial/test_zoo.py",
    "tests/adversarial/test_crash_safe_league.py",
    "tests/report/test_viewer.py",
    "tests/sdk/test_forward_model.py",
    "tests/cli/test_check_steps.py",
    "tests/adversarial/test_secret_deals.py",
    "tests/league/test_pool.py",
    "tests/cli/test_sprt_cli.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the slow files first, keeping every file's tests together and in order."""
    rank = {name: i for i, name in enumerate(SLOW_FILES_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


@pytest.fixture(autouse=True)
def _sigint_as_it_was() -> Iterator[None]:
    """A test that changes how this process takes Ctrl-C (``mus_sdk.serve`` run in-process
    ignores SIGINT, as a bot must) gets it put back: processes later tests start inherit
    an ignored SIGINT, and a league started by a test once finished instead of stopping
    at Ctrl-C."""
    before = signal.getsignal(signal.SIGINT)
    yield
    if (before is not None and signal.getsignal(signal.SIGINT) is not before
            and threading.current_thread() is threading.main_thread()):
        signal.signal(signal.SIGINT, before)
