"""The arena passes the SDK's gRPC tuning opt-out on to the bots it starts."""

from __future__ import annotations

from mus_sdk import _grpc_tuning as tuning


def test_the_opt_out_reaches_the_arenas_bots() -> None:
    """Bots get a minimal environment; the opt-out is part of it, so one setting covers both."""
    from arena.remote.process import BASE_ENV

    assert tuning.OPT_OUT_ENV in BASE_ENV
    assert "GRPC_EXPERIMENTS" not in BASE_ENV  # each process decides for itself
