"""Helpers shared by the SDK tests: sample observations and the example bots' modules.

A module of its own, not ``conftest``: several test folders have a conftest, and
``from conftest import`` would pick whichever was imported first."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from mus_sdk import (
    MUS,
    NO_MUS,
    NO_QUIERO,
    ORDAGO,
    PASO,
    QUIERO,
    DiscardRange,
    EnvidoRange,
    Event,
    EventKind,
    Lance,
    LanceOutcome,
    LegalActions,
    LiveBet,
    Observation,
    Phase,
    Rules,
    Sena,
    envido,
    parse_cards,
)

REPO = Path(__file__).resolve().parents[2]


def load_bot_module(name: str) -> ModuleType:
    """Import bots/<name>/bot.py under a unique module name (all bots are called bot.py)."""
    mod_name = f"_sdk_test_bot_{name}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    spec = importlib.util.spec_from_file_location(mod_name, REPO / "bots" / name / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    spec.loader.exec_module(module)
    return module


def make_observation(**overrides: object) -> Observation:
    """A betting observation in the grande lance with a rich history and a live bet."""
    history = (
        Event(EventKind.MUS_CALL, seat=0, action=MUS),
        Event(EventKind.MUS_CALL, seat=1, action=NO_MUS),
        Event(EventKind.DISCARD, seat=2, value=3),
        Event(EventKind.REPLACEMENTS, value=1),
        Event(EventKind.RESHUFFLE, value=29),
        Event(EventKind.LANCE_START, lance=Lance.GRANDE),
        Event(EventKind.BET, seat=0, lance=Lance.GRANDE, action=envido(3)),
        Event(EventKind.BET, seat=1, lance=Lance.GRANDE, action=NO_QUIERO),
        Event(EventKind.DEJE, team=0, value=1),
        Event(EventKind.LANCE_END, lance=Lance.GRANDE, outcome=LanceOutcome.DECLINED),
        Event(EventKind.DECLARATION, seat=3, lance=Lance.PARES, value=1),
        Event(EventKind.SIGNAL, seat=2, sena=Sena.DUPLES),
    )
    fields: dict[str, object] = dict(
        request_id=12345678901,
        match_id="m-1",
        seat=1,
        phase=Phase.BETTING,
        lance=Lance.CHICA,
        cards=parse_cards("Ro 3c Co Ab"),
        legal_actions=LegalActions([QUIERO, NO_QUIERO, EnvidoRange(2, None), ORDAGO]),
        mano=0,
        dealer=3,
        scores=(5, 12),
        history=history,
        rules=Rules(kings=8, max_mus_rounds=3),
        game=1,
        hand=7,
        games_won=(1, 0),
        vacas_won=(0, 0),
        target_points=40,
        discard_round=1,
        bet=LiveBet(team=0, seat=2, stake=2, deje=1, is_ordago=False),
        legal_senas=(Sena.DOS_REYES, Sena.TREINTA_Y_UNA),
        deadline_ms=1000,
        time_bank_ms=60000,
    )
    fields.update(overrides)
    return Observation(**fields)  # type: ignore[arg-type]


def mus_observation() -> Observation:
    return make_observation(
        phase=Phase.MUS, lance=None, legal_actions=LegalActions([MUS, NO_MUS]), bet=None, history=()
    )


def discard_observation() -> Observation:
    cards = parse_cards("Ro 4c 5o Ab")
    return make_observation(
        phase=Phase.DISCARD,
        lance=None,
        cards=cards,
        legal_actions=LegalActions([DiscardRange(cards, 1, 4)]),
        bet=None,
    )


def opening_observation() -> Observation:
    return make_observation(bet=None, legal_actions=LegalActions([PASO, EnvidoRange(2, 30), ORDAGO]))
