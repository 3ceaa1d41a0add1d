"""Settings for the whole test session."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _own_cpu_claims() -> Iterator[None]:
    """The arenas of this session claim CPUs among themselves only: a benchmark or a
    league running on the same machine would otherwise move their placements, and the
    tests that check where a match ran would see another arena's choice
    (arena/remote/placement.py, ``claimed``). Bot processes and ``mus`` commands started
    by the tests inherit the variable."""
    from arena.remote.placement import LOCKS_ENV

    before = os.environ.get(LOCKS_ENV)
    with tempfile.TemporaryDirectory(prefix="mus-test-cpus-") as folder:
        os.environ[LOCKS_ENV] = folder
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(LOCKS_ENV, None)
            else:
                os.environ[LOCKS_ENV] = before
