"""search: a determinised Monte Carlo Mus bot, searching with the referee's own engine.

Per decision (a mus call, a discard or a bet), until its time is up:

1. sample a full state consistent with what the seat saw (``Observation.to_state``:
   hidden cards uniform given the cards it holds and threw, the declarations and the
   señas; :mod:`mus_core.forward`);
2. for each candidate action, apply it to a copy of that state and play the hand out
   with a fast rule-based policy for all four seats (rulebot's thresholds, computed
   on the engine's state: :class:`Rollout`);
3. score the end of the hand by the team's chance of winning the match (a model of the
   game score: winning a game with an órdago is worth what it is worth at that score,
   not a fixed number of stones), and add it to the candidate's total.

Every candidate is tried on the same sampled states (common random numbers: the
comparison's noise is the difference, not the sum), and the best mean wins.

Time per decision: ``$MUS_SEARCH_MS`` milliseconds (default 40), or a fixed number of
sampled states with ``$MUS_SEARCH_SAMPLES`` (reproducible, for tests). It never takes
more than half the deadline the arena gives. At the end of a match it writes to stderr
its decisions, mean time per decision and playouts per second.
"""

from __future__ import annotations

import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # jsplay, next to this file
from jsplay import JsPolicy
from mus_sdk import (
    Action,
    ActionKind,
    Bot,
    Card,
    MatchEnd,
    MatchInfo,
    Observation,
    Phase,
    serve,
)
from mus_sdk.forward import MusState, SamplingError, StateSampler, play_out_hand

DEFAULT_MS = 40.0
"""Default thinking time per decision, in milliseconds."""

SURPRISE = (0.1, 0.02, 0.005, 0.005, 0.1, 0.1, 0.1)
"""The opponent model's likelihood of an action it would not have taken, by the class of
the action taken (:data:`_KIND_CLASS`): not 0, as the other seats are not this model,
but small for a bet or an órdago, which a player makes with a strong hand (an órdago
the model calls a bluff is far more often a hand it did not expect)."""

_KIND_CLASS = {
    ActionKind.PASO: 0, ActionKind.NO_QUIERO: 0, ActionKind.NO_QUEREMOS: 0,
    ActionKind.QUIERO: 1, ActionKind.QUEREMOS: 1,
    ActionKind.ENVIDO: 2, ActionKind.ORDAGO: 3,
    ActionKind.MUS: 4, ActionKind.NO_MUS: 5, ActionKind.DISCARD: 6,
}
"""Actions that say the same about a hand: passing or declining, accepting, raising, órdago."""

# --------------------------------------------------------------------------- valuing a hand's end


def _match_chance(state: MusState, team: int) -> float:
    """The chance that ``team`` wins the match from ``state`` (between hands): the game's
    chance from the score, then the other games at even odds. A model, not a
    measurement: each hand moves the stone difference by about 6.5 stones (standard
    deviation), and about 9 stones are scored per hand."""
    if state.is_terminal:
        return 1.0 if state.match_winner == team else 0.0
    rules = state.rules
    a, b = state.scores[team], state.scores[1 - team]
    target = rules.target_points
    hands_left = max(1.0, ((target - a) + (target - b)) / 9.0)
    p = 0.5 * (1 + math.erf((a - b) / (6.5 * math.sqrt(hands_left) * math.sqrt(2))))
    mine, theirs = state.games_won[team], state.games_won[1 - team]
    need = rules.games_to_win
    return p * _series(need - mine - 1, need - theirs) + (1 - p) * _series(need - mine, need - theirs - 1)


def _match_chance_after_losing_game(obs: Observation) -> float:
    """``obs.team``'s chance to win the match if it loses the current game now."""
    need = obs.rules.games_to_win
    mine, theirs = obs.games_won[obs.team], obs.games_won[1 - obs.team]
    return _series(need - mine, need - theirs - 1)


def _series(i_need: int, they_need: int) -> float:
    """The chance of winning ``i_need`` games before the other team wins ``they_need``, at
    even odds per game."""
    if i_need <= 0:
        return 1.0
    if they_need <= 0:
        return 0.0
    return 0.5 * (_series(i_need - 1, they_need) + _series(i_need, they_need - 1))


# --------------------------------------------------------------------------- the bot


Z = 2.0
"""How many standard errors a candidate must beat the baseline by to be chosen."""

MIN_ESS = 8.0
"""The fewest effective samples (of the weighted ones) to prefer another candidate."""


def _best(weights: list[float], values: list[list[float]], base: int, risky: list[bool], worst: float) -> int:
    """The index of the candidate with the best weighted mean gain over ``base`` whose
    gain exceeds :data:`Z` standard errors (paired over the samples: every candidate saw
    the same states), else ``base``.

    A ``risky`` candidate (an órdago: it can lose the game at once) gets one more,
    pessimistic sample worth ``worst`` (the match chance after losing this game): an
    órdago the samples never saw accepted is not taken as safe. No candidate is
    preferred on fewer than :data:`MIN_ESS` effective samples."""
    total = sum(weights)
    if total <= 0 or total * total < MIN_ESS * sum(w * w for w in weights):
        return base
    mean_w = total / len(weights)
    best, best_gain = base, 0.0
    for i in range(len(values[0])):
        if i == base:
            continue
        ws = weights
        diffs = [row[i] - row[base] for row in values]
        if risky[i]:
            base_mean = sum(w * row[base] for w, row in zip(weights, values, strict=True)) / total
            ws = [*weights, mean_w]
            diffs.append(worst - base_mean)
        tw = sum(ws)
        mean = sum(w * d for w, d in zip(ws, diffs, strict=True)) / tw
        var = sum(w * w * (d - mean) ** 2 for w, d in zip(ws, diffs, strict=True)) / (tw * tw)
        if mean > Z * math.sqrt(var) and mean > best_gain:
            best, best_gain = i, mean
    return best


class SearchBot(Bot):
    """Determinised Monte Carlo over the engine: see the module docstring."""

    name = "search"
    version = "2.0"
    author = "mus-arena"

    def __init__(self, seed: int | None = None, ms: float | None = None, samples: int | None = None) -> None:
        if seed is None:
            seed = int(os.environ.get("MUS_BOT_SEED", "0"))
        self.seed = seed
        self.rng = random.Random(seed)
        env_ms = os.environ.get("MUS_SEARCH_MS")
        self.ms = ms if ms is not None else float(env_ms) if env_ms else DEFAULT_MS
        env_samples = os.environ.get("MUS_SEARCH_SAMPLES")
        self.samples = samples if samples is not None else int(env_samples) if env_samples else None
        self._policy: JsPolicy | None = None
        self._hand = -1
        self._thrown: list[Card] = []
        self.decisions = 0
        self.searched = 0
        self.seconds = 0.0
        self.playouts = 0

    def policy(self, kings: int) -> JsPolicy:
        """The baseline, rollout policy and opponent model (jsbot's strategy)."""
        if self._policy is None or self._policy.kings != kings:
            self._policy = JsPolicy(kings)
        return self._policy

    def on_match_start(self, match: MatchInfo) -> None:
        self.rng = random.Random(f"{self.seed}:{match.match_id}:{match.seat}")
        self.policy(match.rules.kings)

    def decide(self, obs: Observation) -> Action:
        start = time.perf_counter()
        if obs.hand != self._hand:
            self._hand, self._thrown = obs.hand, []
        policy = self.policy(obs.rules.kings)
        action = policy.decide(obs)
        if obs.phase is Phase.BETTING and self.samples != 0:
            candidates = self._candidates(obs, action)
            if len(candidates) > 1:
                action = self._search(obs, candidates, start)
                self.searched += 1
        if action.kind is ActionKind.DISCARD:
            self._thrown.extend(action.cards)
        self.decisions += 1
        self.seconds += time.perf_counter() - start
        return action

    def _candidates(self, obs: Observation, base: Action) -> list[Action]:
        """The actions worth comparing, the baseline first: every fixed action and envidos
        of 2 and 5 stones."""
        out: list[Action] = [base]
        legal = obs.legal_actions
        for a in legal.fixed:
            if a not in out:
                out.append(a)
        er = legal.envido_range
        if er is not None:
            for amount in (2, 5):
                bet = legal.envido(max(amount, er.min_amount))
                if bet is not None and bet not in out:
                    out.append(bet)
        return out

    def _search(self, obs: Observation, candidates: list[Action], start: float) -> Action:
        """The candidate whose playouts beat the baseline (``candidates[0]``, jsbot's
        choice) by the most, if by more than :data:`Z` standard errors; else the
        baseline. Without that margin the maximum of noisy means favours the actions
        whose results vary most (an órdago that the few samples happened to win)."""
        budget = self.ms / 1000.0
        if obs.deadline_ms:
            budget = min(budget, obs.deadline_ms / 2000.0)
        weights, values = self._playouts(obs, candidates, start + budget)
        if not weights:
            return candidates[0]
        risky = [a.kind is ActionKind.ORDAGO for a in candidates]
        worst = _match_chance_after_losing_game(obs)
        return candidates[_best(weights, values, 0, risky, worst)]

    def evaluate(self, obs: Observation, samples: int) -> dict[Action, float]:
        """Each candidate action's weighted mean match chance over ``samples`` sampled
        states (what the search compares; for tests and for curious authors)."""
        candidates = self._candidates(obs, self.policy(obs.rules.kings).decide(obs))
        saved, self.samples = self.samples, samples
        try:
            weights, values = self._playouts(obs, candidates, math.inf)
        finally:
            self.samples = saved
        total = sum(weights)
        return {a: sum(w * row[i] for w, row in zip(weights, values, strict=True)) / total
                for i, a in enumerate(candidates)}

    def _playouts(
        self, obs: Observation, candidates: list[Action], deadline: float
    ) -> tuple[list[float], list[list[float]]]:
        """Sample states until ``deadline`` or ``self.samples`` of them (whichever comes
        first) and play every candidate out on each: the samples' weights and each
        sample's match chance per candidate (nothing if nothing could be sampled)."""
        policy = self.policy(obs.rules.kings)
        team = obs.team
        weights: list[float] = []
        values: list[list[float]] = []
        try:
            sampler = StateSampler(obs, self._thrown)
        except SamplingError:
            return weights, values
        rng = self.rng
        k = len(candidates)
        limit = self.samples
        while True:
            if limit is not None and len(weights) >= limit:
                break
            if weights and time.perf_counter() >= deadline:
                break
            try:
                world, weight = sampler.sample_weighted(rng, self._likelihood)
            except SamplingError:
                break
            hands_done = len(world.hand_results)
            row = [0.0] * k
            for i, action in enumerate(candidates):
                sim = world.clone()
                sim.apply(action)
                if len(sim.hand_results) == hands_done:  # else the action ended the hand
                    play_out_hand(sim, rng, policy)
                row[i] = _match_chance(sim, team)
            weights.append(weight)
            values.append(row)
        self.playouts += len(weights) * k
        return weights, values

    def _likelihood(self, state: MusState, action: Action) -> float:
        """How likely the opponent model (jsbot's strategy) makes ``action`` with the
        sampled cards: 1 when it would do the same (a discard of as many cards, a bet of
        the same kind), else :data:`SURPRISE`. Bets say much about the cards, and the
        forward model's uniform draw does not know it."""
        mine = self.policy(state.rules.kings)(state)
        if action.kind is ActionKind.DISCARD:
            return 1.0 if len(mine.cards) == len(action.cards) else SURPRISE[6]
        taken = _KIND_CLASS[action.kind]
        return 1.0 if _KIND_CLASS[mine.kind] == taken else SURPRISE[taken]

    def on_match_end(self, result: MatchEnd) -> None:
        if self.decisions:
            per = 1000 * self.seconds / self.decisions
            rate = self.playouts / self.seconds if self.seconds else 0.0
            print(
                f"search: {self.decisions} decisions ({self.searched} searched), {per:.1f} ms per decision "
                f"(budget {self.ms:g} ms, samples {self.samples}), {rate:.0f} playouts/s",
                file=sys.stderr,
            )


if __name__ == "__main__":
    serve(SearchBot())
