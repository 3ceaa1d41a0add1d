"""Mus as an OpenSpiel game (``pip install 'mus-sdk[openspiel]'``), and OpenSpiel bots as SDK bots.

    import pyspiel, mus_rl.openspiel_game            # registers "python_mus"
    game = pyspiel.load_game("python_mus", {"players": 4})

A game is one hand of Mus from scores 0-0, seat 0 mano. The deal is explicit chance: 40
chance nodes, each drawing the next card of the deck uniformly among those left (cards
``4k .. 4k+3`` to the seats in turn from mano, then the stock, top first); the stock's
order is thus drawn at the deal, which is the same distribution as drawing each
replacement when it is served (nobody sees the stock). The reshuffles of the discards
(when the stock runs out during the replacements, §3.3) are explicit chance too: one
chance node per reshuffled card, drawing the next card of the new stock uniformly among
the pile's cards left (the engine waits meanwhile: ``MusState.reshuffle_due``,
``apply_reshuffle``). The ``seed`` parameter is kept for compatibility and draws
nothing any more. With ``whole_game`` true the game is a whole game to
``target_points`` instead: when a hand ends without ending the game, chance deals the
next one (40 chance nodes again), with the scores carried on and the mano passed on;
returns are then +1 / -1 per team for the game. Player actions are the 32 indices of :mod:`mus_rl.actions`; returns are
the team's stones in the hand minus the opponents' over ``target_points`` (a hand that
wins the game counts 1), so the game is zero-sum. Parameters: ``players`` (2, 4, 6),
``kings`` (8, 4), ``target_points``, ``max_mus_rounds`` and ``max_stake`` (they bound
the game's length, which OpenSpiel needs), ``seed``, ``whole_game`` (false).

Tensors: the observation tensor is :func:`mus_rl.encode.encode` of the seat's view;
the information-state tensor adds the four cards the seat was dealt and every card it
received (its perfect recall of its private cards; the public history is in the view).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel
from mus_core.events import HandResult
from mus_core.forward import hand_score, sample_state
from mus_core.rules import Rules
from mus_core.state import MusState
from mus_sdk import Bot, MatchInfo, Observation

from mus_rl.actions import ACTION_NAMES, NUM_ACTIONS, legal_indices, to_action
from mus_rl.encode import encode, vector_size

GAME_NAME = "python_mus"
_DEFAULTS: dict[str, Any] = {"players": 4, "kings": 8, "target_points": 40, "max_mus_rounds": 4, "max_stake": 40, "seed": 0,
                             "whole_game": False}
_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Mus (one hand or one game, mus-arena engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def _rules(params: dict[str, Any]) -> Rules:
    return Rules(players=params["players"], kings=params["kings"], target_points=params["target_points"],
                 max_mus_rounds=params["max_mus_rounds"], max_stake=params["max_stake"])


class MusGame(pyspiel.Game):  # type: ignore[misc]
    """One hand of Mus for OpenSpiel (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**_DEFAULTS, **(params or {})}
        self.rules = _rules(merged)
        self.seed = int(merged["seed"])
        self.whole_game = bool(merged["whole_game"])
        n = self.rules.players
        # A hand's length: the deal, the mus rounds (a call and a discard per seat), and
        # per lance at most one raise per 2 stones of max_stake, each answered by all.
        stake = self.rules.max_stake or 40  # the parameters always set both bounds
        rounds = self.rules.max_mus_rounds if self.rules.max_mus_rounds is not None else 4
        # Each discard round may reshuffle the pile into the stock: at most 40 chance nodes.
        length = 40 + (rounds + 1) * 2 * n + rounds * 40 + 5 * (stake // 2 + 2) * n
        if self.whole_game:
            # Every hand gives a team at least a stone (grande is won en paso, accepted,
            # or declined for a deje), so a game lasts at most 2 * target - 1 hands.
            length *= 2 * self.rules.target_points - 1
        info = pyspiel.GameInfo(num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=40, num_players=n,
                                min_utility=-1.0, max_utility=1.0, utility_sum=0.0, max_game_length=length)
        super().__init__(_GAME_TYPE, info, {**merged})

    def new_initial_state(self) -> MusSpielState:
        """The state before the deal."""
        return MusSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> MusObserver:
        """The observer of observation (``perfect_recall`` false) or information-state tensors."""
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return MusObserver(self.rules.players, recall)


class _Engine:
    """Holds the engine state so that OpenSpiel's clone (a ``copy.deepcopy``) copies it
    with :meth:`MusState.clone` (its random streams cannot be pickled)."""

    __slots__ = ("state",)

    def __init__(self, state: MusState) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.state.clone())


class MusSpielState(pyspiel.State):  # type: ignore[misc]
    """A hand (or a game) being played: the chance deal, then a :class:`MusState` of the
    engine; with ``whole_game``, the next hand's deal is chance again."""

    def __init__(self, game: MusGame, engine: MusState | None = None) -> None:
        super().__init__(game)
        self.rules = game.rules
        self.seed = game.seed
        self.deck: list[int] = []
        self.reshuffled: list[int] = []  # the reshuffle being drawn: the new stock so far, top first
        if engine is not None:
            engine.chance_reshuffles = True
        self._engine = None if engine is None else _Engine(engine)
        self.dealt: list[tuple[int, ...]] = [() for _ in range(self.rules.players)]
        self.received: list[set[int]] = [set() for _ in range(self.rules.players)]
        self.whole_game: bool = game.whole_game
        self.past: list[HandResult] = []  # the game's finished hands (whole_game)
        self.next_deal = False  # whole_game: a hand is over, the next one is being dealt

    @property
    def dealing(self) -> bool:
        """Chance is dealing a hand (the first, or with ``whole_game`` the next)."""
        return self._engine is None or self.next_deal

    @property
    def engine(self) -> MusState | None:
        """The engine's state of the hand (``None`` during the deal)."""
        return None if self._engine is None else self._engine.state

    def current_player(self) -> int:
        """The seat to act, or chance during the deal and the reshuffles, or terminal."""
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        engine = self.engine
        if self.dealing or engine is None or engine.reshuffle_due:
            return int(pyspiel.PlayerId.CHANCE)
        return int(engine.to_act)  # type: ignore[arg-type]

    def _legal_actions(self, player: int) -> list[int]:
        assert self.engine is not None
        return legal_indices(self.engine.legal_actions(), self._cards(player))

    def _cards(self, seat: int) -> tuple[Any, ...]:
        assert self.engine is not None
        return tuple(sorted(self.engine.hands[seat]))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards not yet dealt (or not yet placed in the reshuffled stock), equally likely."""
        if self.dealing:
            left = sorted(set(range(40)) - set(self.deck))
        else:
            assert self.engine is not None
            left = sorted(set(map(int, self.engine.reshuffle_due)) - set(self.reshuffled))
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.dealing:
            self.deck.append(action)
            if len(self.deck) == 40:
                self._start()
            return
        engine = self.engine
        assert engine is not None
        due = engine.reshuffle_due
        if due:
            self.reshuffled.append(action)
            if len(self.reshuffled) == len(due):
                engine.apply_reshuffle(self.reshuffled)
                self.reshuffled = []
                self._note_received()
            return
        seat = engine.to_act
        assert seat is not None
        engine.apply(to_action(action, self._cards(seat)))
        self._note_received()
        results = engine.hand_results
        if self.whole_game and results and not results[-1].game_over:
            # The engine dealt the next hand from its seed: chance deals it instead.
            self.past.append(results[-1])
            self.next_deal = True
            self.deck = []

    def _note_received(self) -> None:
        """Each seat's cards so far (its perfect recall, for the information state)."""
        assert self.engine is not None
        if not self.is_terminal():
            for s in range(self.rules.players):
                self.received[s].update(self.engine.hands[s])

    def _start(self) -> None:
        n = self.rules.players
        hands = [self.deck[4 * s : 4 * s + 4] for s in range(n)]
        last = self.engine
        if last is None:
            engine = MusState.from_deal(self.rules, hands, mano=0, stock=self.deck[4 * n :], seed=self.seed)
        else:  # the next hand of the game: the finished one's scores, the mano it passed on
            engine = MusState.from_deal(self.rules, hands, mano=last.mano, stock=self.deck[4 * n :], seed=self.seed,
                                        scores=last.scores, games_won=last.games_won, hand_no=last.hand_no,
                                        game_no=last.game_no)
            self.next_deal = False
        engine.chance_reshuffles = True
        self._engine = _Engine(engine)
        for s in range(n):
            self.dealt[s] = tuple(sorted(hands[s]))
            self.received[s] = set(hands[s])

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}" if self.dealing else f"reshuffle {action}"
        return ACTION_NAMES[action]

    def is_terminal(self) -> bool:
        """The hand has been counted (``whole_game``: a hand ended the game)."""
        results = () if self.next_deal or self.engine is None else self.engine.hand_results
        return bool(results) and (not self.whole_game or results[-1].game_over)

    def returns(self) -> list[float]:
        """Each seat's team result of the hand, or with ``whole_game`` +1 / -1 for the
        game (0 before the end)."""
        if not self.is_terminal():
            return [0.0] * self.rules.players
        assert self.engine is not None
        result = self.engine.hand_results[-1]
        if self.whole_game:
            return [1.0 if result.game_winner == s % 2 else -1.0 for s in range(self.rules.players)]
        target = self.rules.target_points
        return [hand_score(result, s % 2, target) / target for s in range(self.rules.players)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> MusSpielState:
        """A state ``player_id`` cannot tell from this one, the hidden cards drawn by the
        engine's forward model (:func:`mus_core.forward.sample_state`)."""
        if self.dealing or self.engine is None or self.engine.reshuffle_due:
            # A chance node: no player's information state to sample from (ISMCTS asks
            # only at its root, a player's decision).
            return self.clone()  # type: ignore[no-any-return]
        # Draw from the caller's sampler (uniform floats). OpenSpiel's ISMCTS passes an
        # unseeded one, so its searches differ from run to run unless it is given
        # seeded_resampler (OpenSpielBot does that).
        draw = probability_sampler() if probability_sampler is not None else random.random()
        rng = random.Random(int(draw * 2**53))
        out = MusSpielState(self.get_game(), sample_state(self.engine.view(player_id), rng))
        out.deck = list(self.deck)
        out.reshuffled = list(self.reshuffled)
        out.past = list(self.past)
        out.dealt = list(self.dealt)
        out.received = [set(r) for r in self.received]
        return out

    def __str__(self) -> str:
        st = self.engine
        if self.dealing or st is None:
            return f"dealing: {len(self.deck)} cards, {len(self.past)} hands before"
        return f"{st.phase.name} {st.current_lance} to act {st.to_act} hands {[list(map(str, h)) for h in st.hands]}"


class MusObserver:
    """Observation / information-state tensors and strings (OpenSpiel's PyObserver)."""

    def __init__(self, players: int, recall: bool) -> None:
        self.recall = recall
        size = vector_size(players) + (80 if recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MusSpielState, player: int) -> None:
        """Fill :attr:`tensor` for ``player``."""
        self.tensor.fill(0.0)
        if state.dealing or state.engine is None:  # (with whole_game the engine holds the last hand)
            return
        n = vector_size(state.rules.players)
        encode(state.engine.view(player), self.tensor[:n])
        if self.recall:
            for c in state.dealt[player]:
                self.tensor[n + c] = 1.0
            for c in state.received[player]:
                self.tensor[n + 40 + c] = 1.0

    def string_from(self, state: MusSpielState, player: int) -> str:
        """The seat's view as text (with its private cards' history for the information state)."""
        past = f" past {[(r.hands, r.scores_after) for r in state.past]}" if state.whole_game else ""
        if state.dealing or state.engine is None:
            mine = state.deck[4 * player : 4 * player + 4] if len(state.deck) >= 4 * player + 4 else []
            return f"p{player} dealing {len(state.deck)} mine {sorted(mine)}" + past
        view = state.engine.view(player)
        text = (f"p{player} cards {list(map(int, view.cards))} thrown {sorted(map(int, view.own_discards))} "
                f"scores {view.scores} {view.phase.name} {view.lance} bet {view.bet} "
                f"history {[(e.kind.value, e.seat, e.lance, str(e.action), e.value, e.outcome) for e in view.history]}")
        if self.recall:
            # The finished hands are public (every hand is shown in the hand's result).
            text += f" dealt {list(state.dealt[player])} received {sorted(state.received[player])}" + past
        return text


def seeded_resampler(seed: int) -> Callable[[MusSpielState, int], MusSpielState]:
    """A resampler for OpenSpiel's ISMCTS (its ``_resampler_cb``) that draws the hidden
    cards from a generator seeded with ``seed``: ISMCTS's own passes OpenSpiel's
    unseeded ``UniformProbabilitySampler``, so the same seeded search chose differently
    from run to run::

        bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 100, random_state=np.random.RandomState(0))
        bot._resampler_cb = seeded_resampler(0)
    """
    rng = random.Random(seed)

    def resample(state: MusSpielState, player: int) -> MusSpielState:
        return state.resample_from_infostate(player, rng.random)

    return resample


class OpenSpielBot(Bot):
    """Any OpenSpiel bot (``pyspiel.Bot``, e.g. ISMCTS) as an SDK :class:`~mus_sdk.Bot`.

    ``bot``: the OpenSpiel bot, or a function ``(game, seat) -> bot`` called at each
    match start (OpenSpiel's C++ bots are made for one player id: give a function).
    Each decision rebuilds an OpenSpiel state of :class:`MusGame` from the observation
    with the engine's forward model (the hidden cards sampled, consistent with everything
    the seat has seen, so the bot learns nothing it may not know), asks the bot, and
    plays the index it chose (:mod:`mus_rl.actions`). The state starts at the
    observation's position, so a bot that searches sees the rest of the current hand.
    An ISMCTS bot that resamples with OpenSpiel's unseeded sampler is given a
    :func:`seeded_resampler` drawn from ``seed``, so that the same seed plays the same
    moves (its own ``random_state`` is the caller's to seed).
    """

    name = "openspiel"

    def __init__(self, bot: Any, game: MusGame | None = None, seed: int = 0) -> None:
        self.game = game if game is not None else pyspiel.load_game(GAME_NAME)
        self._factory = bot if callable(bot) and not isinstance(bot, pyspiel.Bot) else None
        self.spiel_bot = None if self._factory is not None else bot
        self.rng = random.Random(seed)

    def on_match_start(self, match: MatchInfo) -> None:
        """Make the OpenSpiel bot for this seat (when given a function)."""
        if self._factory is not None:
            self.spiel_bot = self._factory(self.game, match.seat)

    def decide(self, obs: Observation) -> Any:
        """Ask the OpenSpiel bot for the seat's action."""
        if self.spiel_bot is None:
            assert self._factory is not None
            self.spiel_bot = self._factory(self.game, obs.seat)
        if getattr(self.spiel_bot, "_resampler_cb", False) is None:  # a Python ISMCTSBot
            self.spiel_bot._resampler_cb = seeded_resampler(self.rng.getrandbits(64))
        engine = obs.to_state(self.rng)
        state = MusSpielState(self.game, engine)
        state.deck = list(range(40))
        for s in range(obs.num_seats):
            state.dealt[s] = tuple(sorted(engine.hands[s]))
            state.received[s] = set(engine.hands[s])
        index = int(self.spiel_bot.step(state))
        return to_action(index, tuple(sorted(obs.cards)))


pyspiel.register_game(_GAME_TYPE, MusGame)
