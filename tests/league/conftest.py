"""Fixtures shared by the league's tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def sim() -> ModuleType:
    """bench/rating_coverage.py, the simulation of seeded leagues that the standings'
    coverage tests run at a small size (loaded once: it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location("rating_coverage", REPO / "bench" / "rating_coverage.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["rating_coverage"] = module
    spec.loader.exec_module(module)
    return module
