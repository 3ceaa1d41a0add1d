"""The arena runs the SDK's gRPC tuning, and passes its opt-out on to the bots it starts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from mus_sdk import _grpc_tuning as tuning

_spec = importlib.util.spec_from_file_location(
    "sdk_tuning_tests", Path(__file__).resolve().parents[1] / "sdk" / "test_sdk_grpc_tuning.py"
)
assert _spec is not None and _spec.loader is not None
_sdk_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_sdk_tests)


def test_the_arena_starts_grpc_tuned() -> None:
    """``arena.remote`` tunes before its client imports grpc."""
    seen = _sdk_tests.experiments_seen_by(f"import arena.remote.client; {_sdk_tests.SHOW}")
    assert seen == _sdk_tests.expected_in_a_fresh_process()


def test_the_opt_out_reaches_the_arenas_bots() -> None:
    """Bots get a minimal environment; the opt-out is part of it, so one setting covers both."""
    from arena.remote.sandbox import BASE_ENV

    assert tuning.OPT_OUT_ENV in BASE_ENV
    assert "GRPC_EXPERIMENTS" not in BASE_ENV  # each process decides for itself
