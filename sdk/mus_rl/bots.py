"""SDK bots inside the environments: the engine's view given to a bot, loading a bot
directory's ``Bot`` class, and a seat played by a bot object in this process.

This skips the wire (no protobuf): the engine's view is the SDK's ``Observation`` (one
class, :mod:`mus_core.observation`), given the request fields a bot reads.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import random
import sys
from pathlib import Path

from mus_core.actions import Action, is_in
from mus_core.errors import IllegalSignalError
from mus_core.observation import Observation
from mus_core.random_play import random_action
from mus_core.state import MusState
from mus_sdk import Bot, MatchEnd, MatchInfo, split_decision
from mus_sdk.types import MatchEndReason, partners_of

BOTS_DIR = Path(__file__).resolve().parents[2] / "bots"
"""The repository's bundled bots (``bots/rulebot``, ``bots/random``, ...), when installed
from a checkout."""


def sdk_observation(view: Observation, match_id: str = "rl", request_id: int = 1) -> Observation:
    """An engine view as a bot's ``decide`` receives it: the same class, with a request's
    id, the match id and a deadline and time bank (2 s, 120 s), as the arena would send."""
    return dataclasses.replace(view, request_id=request_id, match_id=match_id, deadline_ms=2000,
                               time_bank_ms=120_000)


def load_bot_class(where: str | Path) -> type[Bot]:
    """The ``Bot`` subclass defined in a bot directory's ``bot.py`` (``"rulebot"`` names
    ``bots/rulebot`` of the repository).

    Raises:
        ValueError: no such directory, no ``bot.py``, or no ``Bot`` subclass in it.
    """
    directory = Path(where)
    if not directory.is_dir() and (BOTS_DIR / str(where)).is_dir():
        directory = BOTS_DIR / str(where)
    path = directory / "bot.py"
    if not path.is_file():
        raise ValueError(f"no bot.py in {directory} (give a bot directory, or a bundled bot's name)")
    spec = importlib.util.spec_from_file_location(f"mus_rl_bot_{directory.name}", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(directory))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(directory))
    classes = [v for v in vars(module).values()
               if isinstance(v, type) and issubclass(v, Bot) and v is not Bot and v.__module__ == module.__name__]
    if not classes:
        raise ValueError(f"{path} defines no mus_sdk.Bot subclass")
    return classes[0]


def make_bot(where: str | Path | Bot, seed: int = 0) -> Bot:
    """A bot object: ``where`` itself if it is one, else a new instance of the class of
    :func:`load_bot_class`, given ``seed`` when its constructor takes one."""
    if isinstance(where, Bot):
        return where
    cls = load_bot_class(where)
    if "seed" in inspect.signature(cls).parameters:
        return cls(seed=seed)  # type: ignore[call-arg]
    return cls()


class BotSeat:
    """A seat played by an SDK bot in this process. A bot that raises or answers with an
    illegal action does not stop the episode: a uniformly random legal action is played
    for it (as the arena plays a safe default) and :attr:`faults` counts it."""

    def __init__(self, bot: Bot, seat: int, seed: int = 0) -> None:
        self.bot = bot
        self.seat = seat
        self.faults = 0
        self._rng = random.Random(seed)

    def start(self, state: MusState, match_id: str) -> None:
        """Tell the bot a match starts."""
        rules = state.rules
        self.bot.on_match_start(MatchInfo(match_id=match_id, seat=self.seat, partners=partners_of(self.seat, rules.players),
                                          num_seats=rules.players, rules=rules))

    def play(self, state: MusState, match_id: str) -> Action:
        """Ask the bot and apply its decision (and its seña, when it gives a true one)."""
        view = state.view(self.seat)
        try:
            action, sena = split_decision(self.bot.decide(sdk_observation(view, match_id)))
            legal = is_in(action, view.legal_actions)
        except Exception:
            action, sena, legal = None, None, False
        if not legal or action is None:
            self.faults += 1
            action, sena = random_action(self._rng, view.legal_actions), None
        if sena is not None:
            try:
                state.give_sena(self.seat, sena)
            except IllegalSignalError:
                self.faults += 1
        state.apply(action)
        return action

    def hand_end(self, state: MusState) -> None:
        """Show the bot the hand just counted."""
        self.bot.on_hand_end(state.hand_results[-1])

    def end(self, state: MusState) -> None:
        """Tell the bot the match is over (or the episode was cut short)."""
        winner = state.match_winner
        reason = MatchEndReason.COMPLETED if winner is not None else MatchEndReason.ABORTED
        self.bot.on_match_end(MatchEnd(state.games_won, winner, reason, "", state.vacas))


