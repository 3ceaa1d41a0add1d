"""search: jsbot's strategy, overruled by a determinised Monte Carlo search where the
search is confidently better; searching with the referee's own engine.

The baseline is bots/js's strategy ported to Python (:mod:`jsplay`: discards by expected
hand utility, bets by a win-chance model with pot odds). It plays every mus call and
discard, and every betting decision the search does not overrule.

The search's opponent model is that same port, and a search is only as good as its
model: it runs only once the model has earned it (:meth:`SearchBot.trusted`). At the end
of each hand, the cards every seat ended with are shown; the bot re-plays the hand's
betting on the engine with them and counts the other team's betting actions the port
would have taken itself. With at least :data:`TRUST_SEEN` of them checked and
:data:`TRUST_SHARE` agreeing, it searches; otherwise (the first hands of a match, and
against bots that play otherwise, such as rulebot or bots/cpp) it plays the baseline.
The count starts again at each match (:meth:`SearchBot.on_match_start`): what a process
played before never changes how it plays a match, so a league's results reproduce.

The search runs on the betting decisions that can decide a game: every answer to a bet
or an órdago, and openings once a team is within :data:`CLOSE` stones of the target.
For such a decision:

1. draw states from the posterior over the hidden cards (:meth:`SearchBot._posterior`):
   a uniform draw consistent with what the seat saw (its cards and throws, the
   declarations, the señas: ``StateSampler``, :mod:`mus_core.forward`) is kept with
   probability equal to the opponent model's likelihood of the other seats' actions in
   this hand (the port again: 1 where it would have done the same, :data:`SURPRISE`
   where not), so a bettor is dealt the hands that bet, an órdago the hands that
   órdago;
2. on each kept state, apply each candidate (the baseline's choice, every fixed legal
   action, envidos of 2 and 5 stones) to a copy and play the hand out with the port for
   all four seats (an accepted órdago ends the hand at its showdown at once);
3. value the end of the hand by the team's chance of winning the match
   (:func:`_match_chance`, a model of the score: a game won by an órdago is worth what
   it is worth at that score).

Every candidate sees the same states (common random numbers). A candidate replaces the
baseline only if its mean gain exceeds :data:`Z` standard errors (an órdago counting one
extra sample in which it loses the game); a candidate between :data:`PROMISE` and
:data:`Z` standard errors better gets more samples (up to :data:`EXTEND` more rounds).
Against jsbot, whose play the model is, this finds what jsbot's fixed thresholds miss:
above all órdagos it will not accept (raised over its bets), and answers to its bets
given what they say. Against other bots the same órdagos were called and lost games
(measured against rulebot: 34 % wins with the search always on), hence the check.

Time per decision: ``$MUS_SEARCH_SAMPLES`` kept states per searched decision (the
manifest sets 30: reproducible, whatever the machine's load), capped at
``$MUS_SEARCH_MS`` milliseconds (default 1000 with a sample count; without one the
search runs by time, ``$MUS_SEARCH_MS`` default 40). ``MUS_SEARCH_SAMPLES=0`` plays the
port alone. It never takes more than half the deadline the arena gives. At the end of a
match it writes to stderr its decisions, mean time per decision, playouts per second,
draws and the baseline decisions it overruled.
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
    NO_MUS,
    Action,
    ActionKind,
    Bot,
    EventKind,
    HandResult,
    MatchEnd,
    MatchInfo,
    Observation,
    Phase,
    serve,
)
from mus_sdk import evaluate as ev
from mus_sdk.forward import MusState, SamplingError, StateSampler, play_out_hand

DEFAULT_MS = 40.0
"""Default thinking time per decision, in milliseconds, when searching by time."""

DEFAULT_CAP_MS = 1000.0
"""Default cap on a decision's time, in milliseconds, with a fixed number of samples
(reached only on a loaded machine or an unusual decision; at 300 a decision that
extends its search, drawing with 0.4 of the budget, was cut short on a normal machine)."""

SURPRISE = (0.1, 0.02, 0.005, 0.005, 0.1, 0.1, 0.1)
"""The opponent model's likelihood of an action it would not have taken, by the class of
the action taken (:data:`_KIND_CLASS`): not 0, as the other seats are not this model,
but small for a bet or an órdago, which a player makes with a strong hand (an órdago
the model calls a bluff is far more often a hand it did not expect)."""

_RANK_BITS = ev.RANK_BITS

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


DRAWS_PER_SAMPLE = 60
"""The most uniform draws per posterior state wanted (facing a bet, the opponent model
keeps only a few in a hundred of them)."""

MAX_SAMPLES = 400
"""The most posterior states per decision when the search runs by time."""

DRAW_SHARE = 0.4
"""The part of a timed decision's budget that drawing states may use."""

Z = 2.0
"""How many standard errors a candidate must beat the baseline by to be chosen."""

PROMISE = 1.0
"""A candidate this many standard errors better than the baseline, but not :data:`Z`,
gets more samples (up to :data:`EXTEND` times as many)."""

EXTEND = 3
"""How many more rounds of samples a promising but unsettled decision may get."""

TRUST_SEEN = 12
"""The fewest of the other team's betting actions checked before the search is trusted."""

TRUST_SHARE = 0.98
"""The share of them the opponent model must have taken itself (the same action, the
same amount)."""

CLOSE = 15
"""Openings are searched only when a team is this close to the target (earlier, an
opening bet or órdago rarely decides the game; jsbot's opening is kept)."""

MIN_ESS = 8.0
"""The fewest effective samples (of the weighted ones) to prefer another candidate."""


def _gains(
    weights: list[float], values: list[list[float]], base: int, risky: list[bool], worst: float
) -> list[tuple[float, float]]:
    """Per candidate, its weighted mean gain over ``base`` and the standard error of that
    mean (paired over the samples: every candidate saw the same states); (0, 0) for
    ``base``, and (-inf, 0) for all but ``base`` on fewer than :data:`MIN_ESS`
    effective samples.

    A ``risky`` candidate (an órdago: it can lose the game at once) gets one more,
    pessimistic sample worth ``worst`` (the match chance after losing this game): an
    órdago the samples never saw accepted is not taken as safe."""
    k = len(values[0]) if values else 0
    total = sum(weights)
    out = [(0.0, 0.0) if i == base else (-math.inf, 0.0) for i in range(k)]
    if total <= 0 or total * total < MIN_ESS * sum(w * w for w in weights):
        return out
    mean_w = total / len(weights)
    for i in range(k):
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
        out[i] = (mean, math.sqrt(var))
    return out


def _best(weights: list[float], values: list[list[float]], base: int, risky: list[bool], worst: float) -> int:
    """The index of the candidate with the best mean gain over ``base`` (:func:`_gains`)
    whose gain exceeds :data:`Z` standard errors, else ``base``. Without that margin the
    maximum of noisy means favours the actions whose results vary most (an órdago that
    the few samples happened to win)."""
    best, best_gain = base, 0.0
    for i, (mean, se) in enumerate(_gains(weights, values, base, risky, worst)):
        if i != base and mean > Z * se and mean > best_gain:
            best, best_gain = i, mean
    return best


def _promising(weights: list[float], values: list[list[float]], risky: list[bool], worst: float) -> bool:
    """Whether a candidate beats the baseline (index 0) by between :data:`PROMISE` and
    :data:`Z` standard errors: more samples may settle it."""
    gains = _gains(weights, values, 0, risky, worst)
    return any(i and 0 < mean and PROMISE * se < mean <= Z * se for i, (mean, se) in enumerate(gains))


class _Rejected(Exception):
    """A draw given up during its re-play: its likelihood fell below its threshold."""


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
        env_samples = os.environ.get("MUS_SEARCH_SAMPLES")
        self.samples = samples if samples is not None else int(env_samples) if env_samples else None
        env_ms = os.environ.get("MUS_SEARCH_MS")
        default_ms = DEFAULT_MS if self.samples is None else DEFAULT_CAP_MS
        self.ms = ms if ms is not None else float(env_ms) if env_ms else default_ms
        self._policy: JsPolicy | None = None
        self.decisions = 0
        self.searched = 0
        self.seconds = 0.0
        self.playouts = 0
        self.draws = 0
        self.extended = 0
        self.model_seen = 0
        self.model_agreed = 0
        self._last: Observation | None = None
        self.overrides: dict[str, int] = {}
        self._memo: dict[tuple[int, int], float] = {}
        self._calls = 0
        self._running = 1.0
        self._floor = 0.0

    def policy(self, kings: int) -> JsPolicy:
        """The baseline, rollout policy and opponent model (jsbot's strategy)."""
        if self._policy is None or self._policy.kings != kings:
            self._policy = JsPolicy(kings)
        return self._policy

    def on_match_start(self, match: MatchInfo) -> None:
        """Start the match as a fresh process would: its play is a function of the match
        alone (a league keeps the process for other matches, and its results must
        reproduce whichever matches the process played before: ``mus check`` step 9). The
        opponent model earns its trust again in each match, and the statistics written at
        its end are the match's."""
        self.rng = random.Random(f"{self.seed}:{match.match_id}:{match.seat}")
        self.policy(match.rules.kings)
        self.model_seen = self.model_agreed = 0
        self._last = None
        self._memo = {}
        self.decisions = self.searched = self.playouts = self.draws = self.extended = 0
        self.seconds = 0.0
        self.overrides = {}

    def decide(self, obs: Observation) -> Action:
        start = time.perf_counter()
        policy = self.policy(obs.rules.kings)
        action = policy.decide(obs)
        self._last = obs
        if self.samples != 0 and self.trusted() and self._worth_searching(obs):
            candidates = self._candidates(obs, action)
            if len(candidates) > 1:
                action = self._search(obs, candidates, start)
                self.searched += 1
        self.decisions += 1
        self.seconds += time.perf_counter() - start
        return action

    def trusted(self) -> bool:
        """Whether the opponent model has earned the search: the other team's betting
        actions checked so far (:meth:`on_hand_end`) are at least :data:`TRUST_SEEN`, and
        the model took the same action as they did in :data:`TRUST_SHARE` of them. Until
        then, and against bots that play otherwise, the bot plays the baseline: the
        search's gains against jsbot come from knowing how it answers, and against
        another bot they would be losses."""
        return self.model_seen >= TRUST_SEEN and self.model_agreed >= TRUST_SHARE * self.model_seen

    def on_hand_end(self, summary: HandResult) -> None:
        """Check the opponent model against the hand just played: with the cards the hand
        ended with (every seat's, shown at its end), re-play its betting from the last
        decision's history on the engine and count the other team's betting actions that
        the model (the port) would have taken itself."""
        obs, self._last = self._last, None
        if obs is None or obs.hand != summary.hand or self.samples == 0:
            return
        try:
            seen, agreed = self._check_model(obs, summary)
        except (ValueError, AssertionError):
            return
        self.model_seen += seen
        self.model_agreed += agreed

    def _check_model(self, obs: Observation, summary: HandResult) -> tuple[int, int]:
        bets = [e for e in obs.history if e.kind is EventKind.BET]
        if not bets:
            return 0, 0
        policy = self.policy(obs.rules.kings)
        scores = (summary.scores_before[0], summary.scores_before[1])
        state = MusState.from_deal(obs.rules, summary.hands, mano=summary.mano, scores=scores,
                                   games_won=(obs.games_won[0], obs.games_won[1]))
        if state.phase is Phase.MUS:
            if not state.is_legal(NO_MUS):
                return 0, 0
            state.apply(NO_MUS)
        seen = agreed = 0
        for e in bets:
            assert e.action is not None and e.seat is not None and state.to_act == e.seat
            if (e.seat & 1) != obs.team:
                seen += 1
                agreed += policy(state) == e.action
            state.apply(e.action)
        return seen, agreed

    def _worth_searching(self, obs: Observation) -> bool:
        """Betting decisions: every answer to a bet, and openings when a team is within
        :data:`CLOSE` stones of the target (where an órdago decides the game)."""
        if obs.phase is not Phase.BETTING:
            return False
        if obs.bet is not None:
            return True
        target = obs.target_points or obs.rules.target_points
        return max(obs.scores) >= target - CLOSE

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
        deadline = start + budget
        weights, values = self._playouts(obs, candidates, deadline)
        if not weights:
            return candidates[0]
        risky = [a.kind is ActionKind.ORDAGO for a in candidates]
        worst = _match_chance_after_losing_game(obs)
        for _ in range(EXTEND):
            if not _promising(weights, values, risky, worst):
                break
            if time.perf_counter() >= deadline:
                break
            more_w, more_v = self._playouts(obs, candidates, deadline)
            self.extended += 1
            weights += more_w
            values += more_v
        chosen = candidates[_best(weights, values, 0, risky, worst)]
        if chosen != candidates[0]:
            change = f"{candidates[0].kind.name.lower()}>{chosen.kind.name.lower()}"
            self.overrides[change] = self.overrides.get(change, 0) + 1
        return chosen

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

    def _posterior(self, obs: Observation, want: int, deadline: float) -> list[MusState]:
        """Up to ``want`` states drawn from the posterior over the hidden cards, by
        rejection: a uniform draw that agrees with what the seat saw (``StateSampler``)
        is kept with probability (the opponent model's likelihood of the other seats'
        actions in this hand) / ``c``, so the kept states count equally. The likelihood
        is a product over the actions re-played in order, so a draw is given up at the
        first action that brings it below its acceptance threshold (most draws facing
        a bet end there, cheaply). ``c`` starts at 1 (the model explains the actions
        fully) and drops tenfold whenever too few draws are kept (the other seats are
        not the model). Draws stop at ``want`` kept, :data:`DRAWS_PER_SAMPLE` times
        ``want`` draws, or ``deadline``."""
        try:
            sampler = StateSampler(obs)  # its own discards: obs.own_discards
        except SamplingError:
            return []
        rng = self.rng
        self._memo = {}
        kept: list[MusState] = []
        c = 1.0
        draws = 0
        limit = DRAWS_PER_SAMPLE * want
        step = max(1, limit // 8)
        while draws < limit and len(kept) < want:
            if time.perf_counter() >= deadline:
                break
            draws += 1
            if draws % step == 0 and len(kept) * 8 < want * draws / limit and c > 1e-4:
                c *= 0.1
            self._calls = 0
            self._running = 1.0
            self._floor = rng.random() * c
            try:
                world, _ = sampler.sample_weighted(rng, self._likelihood)
            except _Rejected:
                continue
            except SamplingError:
                break
            kept.append(world)
        self.draws += draws
        return kept
    def _playouts(
        self, obs: Observation, candidates: list[Action], deadline: float
    ) -> tuple[list[float], list[list[float]]]:
        """Posterior states (:meth:`_posterior`: ``self.samples`` of them, or as many as
        the time allows) with every candidate played out on each: the states' weights
        (equal) and each state's match chance per candidate."""
        policy = self.policy(obs.rules.kings)
        team = obs.team
        want = self.samples if self.samples is not None else MAX_SAMPLES
        now = time.perf_counter()
        worlds = self._posterior(obs, want, now + DRAW_SHARE * (deadline - now))
        rng = self.rng
        k = len(candidates)
        values: list[list[float]] = []
        for world in worlds:
            if values and time.perf_counter() >= deadline:
                break
            hands_done = len(world.hand_results)
            row = [0.0] * k
            for i, action in enumerate(candidates):
                sim = world.clone()
                sim.apply(action)
                if len(sim.hand_results) == hands_done:  # else the action ended the hand
                    play_out_hand(sim, rng, policy)
                row[i] = _match_chance(sim, team)
            values.append(row)
        self.playouts += len(values) * k
        return [1.0] * len(values), values

    def _likelihood(self, state: MusState, action: Action) -> float:
        """How likely the opponent model (jsbot's strategy) makes ``action`` with the
        sampled cards: 1 when it would do the same (a discard of as many cards, a bet of
        the same kind), else :data:`SURPRISE`. Bets say much about the cards, and the
        forward model's uniform draw does not know it.

        The model's choice depends on the acting seat's own cards and the public history
        only, and the sampler re-plays the same actions in the same order in every draw:
        it is kept per (place in that order, rank multiset of the hand)."""
        i = self._calls
        self._calls += 1
        seat = state.to_act
        assert seat is not None
        code = sum(_RANK_BITS[c] for c in state.hands[seat])
        got = self._memo.get((i, code))
        if got is None:
            mine = self.policy(state.rules.kings)(state)
            if action.kind is ActionKind.DISCARD:
                got = 1.0 if len(mine.cards) == len(action.cards) else SURPRISE[6]
            else:
                taken = _KIND_CLASS[action.kind]
                got = 1.0 if _KIND_CLASS[mine.kind] == taken else SURPRISE[taken]
            self._memo[(i, code)] = got
        self._running *= got
        if self._running < self._floor:
            raise _Rejected
        return got

    def on_match_end(self, result: MatchEnd) -> None:
        if self.decisions:
            per = 1000 * self.seconds / self.decisions
            rate = self.playouts / self.seconds if self.seconds else 0.0
            print(
                f"search: {self.decisions} decisions ({self.searched} searched), {per:.1f} ms per decision "
                f"(budget {self.ms:g} ms, samples {self.samples}), {rate:.0f} playouts/s, {self.draws} draws, {self.extended} extensions, model {self.model_agreed}/{self.model_seen}, overrides {self.overrides}",
                file=sys.stderr,
            )


if __name__ == "__main__":
    serve(SearchBot())
