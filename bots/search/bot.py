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
from collections.abc import Sequence

from mus_sdk import (
    MUS,
    NO_MUS,
    NO_QUEREMOS,
    NO_QUIERO,
    ORDAGO,
    PASO,
    QUEREMOS,
    QUIERO,
    Action,
    ActionKind,
    Bot,
    Card,
    DiscardRange,
    EnvidoRange,
    Lance,
    MatchEnd,
    MatchInfo,
    Observation,
    Phase,
    discard,
    envido,
    serve,
)
from mus_sdk import evaluate as ev
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

# --------------------------------------------------------------------------- rollout policy


class _HandInfo:
    """What the rollout policy needs of a hand, computed once per rank multiset."""

    __slots__ = ("grande", "mus_good", "strength", "total")

    def __init__(self, cards: Sequence[int], kings: int) -> None:
        v = ev.evaluate(cards, kings)
        self.total = v.total
        s = [ev.strength(cards, int(lance), kings, among_holders=lance in (Lance.PARES, Lance.JUEGO)) for lance in Lance]
        self.strength = s
        self.grande = s[Lance.GRANDE]
        self.mus_good = (
            v.total == 31
            or v.pares is ev.Pares.DUPLES
            or v.pares is ev.Pares.MEDIAS
            or (v.has_pares and self.grande > 0.85)
            or (v.has_juego and v.has_pares)
        )


class Rollout:
    """rulebot's play (bots/rulebot) as a function of the engine's state, for playouts:
    cut the mus with a good hand, keep kings, aces, pairs and figuras, and bet, raise,
    accept or decline by strength thresholds that rise with the stake. Deterministic."""

    def __init__(self, kings: int) -> None:
        self.kings = kings
        self._info: dict[int, _HandInfo] = {}

    def info(self, cards: Sequence[int]) -> _HandInfo:
        key = sum(_RANK_BITS[c] for c in cards)
        got = self._info.get(key)
        if got is None:
            got = self._info[key] = _HandInfo(cards, self.kings)
        return got

    def __call__(self, state: MusState) -> Action:
        seat = state.to_act
        assert seat is not None
        phase = state.phase
        hands = state.hands
        if phase is Phase.MUS:
            return NO_MUS if self.info(hands[seat]).mus_good else MUS
        if phase is Phase.DISCARD:
            return self.discard(hands[seat])
        return self.bet(state, seat, hands)

    def discard(self, cards: Sequence[int]) -> Action:
        """rulebot's discard: throw what is not a king, an ace, part of pares, or a figura
        that goes with another toward juego (at least one card)."""
        eff = {c: _effective(c, self.kings) for c in cards}
        counts: dict[int, int] = {}
        for c in cards:
            counts[eff[c]] = counts.get(eff[c], 0) + 1
        tens = sum(1 for c in cards if eff[c] >= 7)

        def keep_score(c: int) -> float:
            r = eff[c]
            score = 0.0
            if counts[r] >= 2:
                score += 3 + r / 10
            if r == _REY:
                score += 2.5
            elif r == _AS:
                score += 1.5
            elif r >= 7 and tens >= 2:
                score += 1.2
            return score

        throw = [c for c in cards if keep_score(c) < 1.5]
        if not throw:
            throw = [min(cards, key=keep_score)]
        return discard(throw)

    def bet(self, state: MusState, seat: int, hands: Sequence[Sequence[int]]) -> Action:
        lance = state.current_lance
        assert lance is not None
        n = state.n
        mine = self.info(hands[seat])
        s = mine.strength[lance]
        s += 0.04 * (1 - ((seat - state.mano) % n) / max(1, n - 1))
        if lance is Lance.JUEGO and mine.total == 31 and seat == state.mano:
            s = max(s, 0.99)
        if n > 2 and lance in (Lance.PARES, Lance.JUEGO) and self.info(hands[(seat + 2) % n]).strength[lance] > 0:
            s += 0.08  # the partner declared it: it scores its values too
        s = min(s, 1.0)
        legal = state.legal_actions()
        bet = state.bet
        their = state.scores[1 - (seat & 1)]
        they_close = their >= state.rules.target_points - 6
        can_ordago = ORDAGO in legal
        if bet is None:
            if can_ordago and (s >= 0.985 or (they_close and s >= 0.93)):
                return ORDAGO
            if s >= 0.72 and _can_envido(legal):
                return envido(2 if s < 0.88 else 4)
            return PASO
        if bet.is_ordago:
            return _answer(legal, s >= 0.9 or (they_close and s >= 0.6))
        if can_ordago and s >= 0.985:
            return ORDAGO
        if s >= 0.9 and bet.stake < 10 and _can_envido(legal):
            return envido(2)
        return _answer(legal, s >= min(0.85, 0.5 + 0.04 * bet.stake))


_RANK_BITS = ev.RANK_BITS
_AS, _REY = 0, 9


def _effective(card: int, kings: int) -> int:
    r = card >> 2
    if kings == 8:
        if r == 2:
            return _REY
        if r == 1:
            return _AS
    return r


def _can_envido(legal: Sequence[object]) -> bool:
    return any(isinstance(a, EnvidoRange) for a in legal)


def _answer(legal: Sequence[object], accept: bool) -> Action:
    if accept:
        return QUIERO if QUIERO in legal else QUEREMOS
    return NO_QUIERO if NO_QUIERO in legal else NO_QUEREMOS


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
    version = "1.0"
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
        self._rollout: Rollout | None = None
        self._hand = -1
        self._thrown: list[Card] = []
        self.decisions = 0
        self.seconds = 0.0
        self.playouts = 0

    def on_match_start(self, match: MatchInfo) -> None:
        self.rng = random.Random(f"{self.seed}:{match.match_id}:{match.seat}")
        self._rollout = Rollout(match.rules.kings)

    def decide(self, obs: Observation) -> Action:
        start = time.perf_counter()
        if obs.hand != self._hand:
            self._hand, self._thrown = obs.hand, []
        if self._rollout is None or self._rollout.kings != obs.rules.kings:
            self._rollout = Rollout(obs.rules.kings)
        candidates = self._candidates(obs)
        action = candidates[0] if len(candidates) == 1 else self._search(obs, candidates, start)
        if action.kind is ActionKind.DISCARD:
            self._thrown.extend(action.cards)
        self.decisions += 1
        self.seconds += time.perf_counter() - start
        return action

    def _candidates(self, obs: Observation) -> list[Action]:
        """The actions worth comparing: every fixed action, envidos of 2 and 5 stones, and
        for a discard rulebot's choice and its neighbours (one card more or fewer kept)."""
        assert self._rollout is not None
        legal = obs.legal_actions
        if obs.phase is Phase.DISCARD:
            rng_ = legal.discard_range
            assert rng_ is not None
            return self._discards(list(rng_.cards), rng_)
        out: list[Action] = list(legal.fixed)
        er = legal.envido_range
        if er is not None:
            for amount in (2, 5):
                a = legal.envido(max(amount, er.min_amount))
                if a is not None and a not in out:
                    out.append(a)
        return out

    def _discards(self, cards: list[int], rng_: DiscardRange) -> list[Action]:
        assert self._rollout is not None
        base = self._rollout.discard(cards)
        out = [base]
        thrown = set(base.cards)
        kept = [c for c in cards if c not in thrown]
        # Neighbours: throw one more of the kept cards, or keep one of the thrown.
        for c in kept:
            if len(thrown) + 1 <= rng_.max_count:
                out.append(discard(sorted(thrown | {c})))
        if len(thrown) > 1:
            for c in thrown:
                out.append(discard(sorted(thrown - {c})))
        return out

    def _search(self, obs: Observation, candidates: list[Action], start: float) -> Action:
        """The candidate whose playouts beat the rollout policy's own choice (the
        baseline) by the most, if by more than :data:`Z` standard errors; else the
        baseline. Without that margin the maximum of noisy means favours the actions
        whose results vary most (an órdago that the few samples happened to win)."""
        budget = self.ms / 1000.0
        if obs.deadline_ms:
            budget = min(budget, obs.deadline_ms / 2000.0)
        weights, values, base = self._playouts(obs, candidates, start + budget)
        if base < 0:
            return candidates[0]
        risky = [a.kind is ActionKind.ORDAGO for a in candidates]
        worst = _match_chance_after_losing_game(obs)
        return candidates[_best(weights, values, base, risky, worst)]

    def evaluate(self, obs: Observation, samples: int) -> dict[Action, float]:
        """Each candidate action's weighted mean match chance over ``samples`` sampled
        states (what the search compares; for tests and for curious authors)."""
        if self._rollout is None:
            self._rollout = Rollout(obs.rules.kings)
        candidates = self._candidates(obs)
        saved, self.samples = self.samples, samples
        try:
            weights, values, _ = self._playouts(obs, candidates, 0.0)
        finally:
            self.samples = saved
        total = sum(weights)
        return {a: sum(w * row[i] for w, row in zip(weights, values, strict=True)) / total
                for i, a in enumerate(candidates)}

    def _playouts(
        self, obs: Observation, candidates: list[Action], deadline: float
    ) -> tuple[list[float], list[list[float]], int]:
        """Sample states until ``deadline`` (or ``self.samples`` of them) and play every
        candidate out on each: the samples' weights, each sample's match chance per
        candidate, and the index of the baseline (the rollout policy's own choice,
        appended to ``candidates`` if missing; -1 if nothing could be sampled)."""
        assert self._rollout is not None
        policy = self._rollout
        team = obs.team
        weights: list[float] = []
        values: list[list[float]] = []
        try:
            sampler = StateSampler(obs, self._thrown)
        except SamplingError:
            return weights, values, -1
        rng = self.rng
        base = -1
        k = len(candidates)
        while True:
            if self.samples is not None:
                if len(weights) >= self.samples:
                    break
            elif weights and time.perf_counter() >= deadline:
                break
            try:
                world, weight = sampler.sample_weighted(rng, self._likelihood)
            except SamplingError:
                break
            if base < 0:
                # The policy's choice depends on the seat's cards and the public state
                # only: the same in every sample.
                mine = policy(world)
                if mine not in candidates:
                    candidates.append(mine)
                    k += 1
                base = candidates.index(mine)
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
        return weights, values, base

    def _likelihood(self, state: MusState, action: Action) -> float:
        """How likely the opponent model (the rollout policy) makes ``action`` with the
        sampled cards: 1 when it would do the same (a discard of as many cards, a bet of
        the same kind), else :data:`SURPRISE`. Bets say much about the cards, and the
        forward model's uniform draw does not know it."""
        assert self._rollout is not None
        mine = self._rollout(state)
        if action.kind is ActionKind.DISCARD:
            return 1.0 if len(mine.cards) == len(action.cards) else SURPRISE[6]
        taken = _KIND_CLASS[action.kind]
        return 1.0 if _KIND_CLASS[mine.kind] == taken else SURPRISE[taken]

    def on_match_end(self, result: MatchEnd) -> None:
        if self.decisions:
            per = 1000 * self.seconds / self.decisions
            rate = self.playouts / self.seconds if self.seconds else 0.0
            print(
                f"search: {self.decisions} decisions, {per:.1f} ms per decision (budget {self.ms:g} ms), "
                f"{rate:.0f} playouts/s",
                file=sys.stderr,
            )


if __name__ == "__main__":
    serve(SearchBot())
