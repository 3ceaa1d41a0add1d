"""Former public names of the SDK and of mus_core keep working, each with a
DeprecationWarning (docs/compatibility.md, "Deprecation"), and only once per process,
so that a bot that reads one on every decision pays nothing more; they are out of
``__all__`` (``import *`` never warns)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from collections.abc import Iterator

import mus_core
import mus_sdk
import pytest
from mus_core import _deprecation
from mus_core.state import MusState
from sdk_helpers import make_observation


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    """Each test sees the first use of every former name."""
    _deprecation._warned.clear()
    yield
    _deprecation._warned.clear()


@pytest.mark.parametrize(("module", "old", "new"), [
    ("mus_sdk", "HandSummary", "HandResult"),
    ("mus_sdk", "MatchResult", "MatchEnd"),
    ("mus_sdk.types", "HandSummary", "HandResult"),
    ("mus_sdk.types", "MatchResult", "MatchEnd"),
    ("mus_core", "DiscardChoice", "DiscardRange"),
    ("mus_core", "HandEval", "HandValue"),
    ("mus_core.actions", "DiscardChoice", "DiscardRange"),
    ("mus_core.evaluate", "HandEval", "HandValue"),
    ("mus_core.state", "SeatView", "Observation"),
    ("mus_core.forward", "ObservationLike", "Observation"),
])
def test_a_former_module_name_is_the_new_one_with_a_warning(module: str, old: str, new: str) -> None:
    mod = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated: use {new}"):
        value = getattr(mod, old)
    assert value is getattr(mod, new)
    assert old not in getattr(mod, "__all__", ())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(mod, old) is value  # once: the second use is silent
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        _ = mod.NoSuchName


def test_former_attribute_names_read_the_new_ones_with_a_warning() -> None:
    state = MusState.new(seed=7)
    state.apply(mus_core.NO_MUS)
    view = state.view(0)
    cases = [
        (lambda: view.live_bet, view.bet, "Observation.live_bet"),
        (lambda: view.mus_round, view.discard_round, "Observation.mus_round"),
        (lambda: view.players, view.num_seats, "Observation.players"),
        (lambda: state.live_bet, state.bet, "MusState.live_bet"),
        (lambda: state.mus_round, state.discard_round, "MusState.mus_round"),
    ]
    for read, now, old in cases:
        with pytest.warns(DeprecationWarning, match=old):
            assert read() == now
    bet = mus_core.LiveBet(team=0, seat=0, stake=2, deje=1)
    with pytest.warns(DeprecationWarning, match="LiveBet.prev"):
        assert bet.prev == 1
    obs = make_observation()
    with pytest.warns(DeprecationWarning, match="Observation.legal is deprecated"):
        assert obs.legal is obs.legal_actions
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert obs.legal is obs.legal_actions  # once per process: free on a bot's hot path


def test_star_imports_and_the_arena_use_no_former_name() -> None:
    # A fresh interpreter with every warning an error: importing the SDK, the engine and
    # the whole arena (the CLI imports every layer) touches no deprecated name.
    code = ("from mus_sdk import *\nfrom mus_core import *\nfrom mus_core.state import *\n"
            "import arena.cli.main")
    done = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "HandSummary" not in mus_sdk.__all__
