"""jsbot's strategy (bots/js/strategy.js) in Python, on the engine's types.

The search bot uses it three ways: as its baseline decision (what it plays unless the
search is confidently better), as the policy of every seat in its playouts, and as the
opponent model that weighs the sampled hidden hands by how likely the seen bets were.

The port follows strategy.js rule for rule:

- mus: cut with a hand that is already good (31, medias or duples, pares with a strong
  grande, juego with pares or a strong grande, ...), else ask for mus;
- discard: the discard whose expected hand utility over every possible replacement
  (the 36 cards the seat cannot see) is highest; the utility favours kings, aces, pares
  and juego. It depends on the hand's ranks only, so it is computed once per rank
  multiset and kept (:meth:`JsPolicy.discard`);
- betting: a chance to win the lance per seat (the hand's strength, ties to the seat
  nearer mano, every opponent still in the lance beaten independently; a bettor's hand
  is assumed at least as strong as its bet says: 0.5 for an opening bet, 0.75 after a
  re-raise, 0.92 for an órdago), a share for a partner still in it, then open, raise,
  accept or decline by the expected stones (pot odds), órdago only with a near-certain
  hand, an órdago accepted only at ``me >= 0.6`` (0.35 when the other team is close to
  the target) and everything accepted when declining would give them the game.

The decision is a function of what one seat may know: its cards, the public history of
the hand, the scores and the legal actions. :meth:`JsPolicy.decide` takes an SDK
``Observation``; :meth:`JsPolicy.__call__` takes a ``MusState`` (the seat to act), so the
same code plays inside the search. It reads only the acting seat's own cards.
"""

from __future__ import annotations

import bisect
import itertools
import math
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
    Card,
    DiscardRange,
    EnvidoRange,
    Lance,
    Observation,
    Phase,
    discard,
    envido,
)
from mus_sdk import evaluate as ev
from mus_sdk.forward import MusState
from mus_sdk.types import EventKind, JuegoReal, LiveBet, Sena

GRANDE, CHICA, PARES, JUEGO, PUNTO = (int(lance) for lance in Lance)
_RANK_BITS = ev.RANK_BITS
_WEIGHT = tuple(1 << (3 * r) for r in range(10))


def _physical(code: int) -> int:
    return math.prod(math.comb(4, (code >> (3 * r)) & 7) for r in range(10))


def _key(v: ev.HandValue, lance: int) -> int:
    if lance == GRANDE:
        return v.grande_key
    if lance == CHICA:
        return v.chica_key
    if lance == PARES:
        return v.pares_key
    if lance == JUEGO:
        return v.juego_rank
    return v.total


class _Tables:
    """Per kings: every rank multiset's value, its strength per lance (with the tie share
    of strategy.js: 0.5, 1 or 0) and its discard utility."""

    def __init__(self, kings: int) -> None:
        self.kings = kings
        self.values = ev.table(kings)
        self.codes = sorted(self.values)
        self._cum: list[tuple[list[int], list[int]]] = []
        for lance in range(5):
            weights: dict[int, int] = {}
            for code, v in self.values.items():
                k = _key(v, lance)
                weights[k] = weights.get(k, 0) + _physical(code)
            keys = sorted(weights)
            self._cum.append((keys, list(itertools.accumulate(weights[k] for k in keys))))
        self._strength: dict[tuple[int, int, bool, float], float] = {}
        self.utility = {code: self._utility(code) for code in self.codes}
        self._discards: dict[int, tuple[int, ...]] = {}
        self._draws: list[list[tuple[int, tuple[tuple[int, int], ...]]]] = [[]]
        for size in range(1, 5):
            draws = []
            for ranks in itertools.combinations_with_replacement(range(10), size):
                key = sum(_WEIGHT[r] for r in ranks)
                counts = tuple((r, ranks.count(r)) for r in sorted(set(ranks)))
                draws.append((key, counts))
            self._draws.append(draws)

    def strength(self, code: int, lance: int, among: bool = False, tie: float = 0.5) -> float:
        """strategy.js ``strength``: the fraction of all hands this one beats on ``lance``,
        ties counting ``tie``; for pares and juego ``among`` holders only."""
        cache_key = (code, lance, among, tie)
        got = self._strength.get(cache_key)
        if got is not None:
            return got
        k = _key(self.values[code], lance)
        keys, cumulative = self._cum[lance]
        i = bisect.bisect_left(keys, k)
        below = cumulative[i - 1] if i > 0 else 0
        same = (cumulative[i] - below) if i < len(keys) and keys[i] == k else 0
        everyone = cumulative[-1]
        if among and lance in (PARES, JUEGO):
            if k == 0:
                s = 0.0
            else:
                none = cumulative[0] if keys[0] == 0 else 0
                s = (below - none + same * tie) / (everyone - none)
        else:
            s = (below + same * tie) / everyone
        self._strength[cache_key] = s
        return s

    def _utility(self, code: int) -> float:
        v = self.values[code]
        u = 1.0 * self.strength(code, GRANDE) + 0.8 * self.strength(code, CHICA)
        if v.pares:
            u += 0.45 * int(v.pares) + 0.8 * self.strength(code, PARES, True)
        if v.total >= 31:
            u += 2.2 if v.total == 31 else 1.0 + 0.5 * (v.juego_rank / 8)
        else:
            u += 0.3 * self.strength(code, PUNTO)
        return u

    def expected_utility(self, kept: int, k: int, avail: Sequence[int]) -> float:
        """The mean utility of keeping the ranks ``kept`` (a code) and drawing ``k`` of the
        unseen cards, ``avail[r]`` of rank r."""
        table = self.utility
        if k == 0:
            return table[kept]
        total = weight = 0.0
        comb = math.comb
        for key, counts in self._draws[k]:
            w = 1
            for r, n in counts:
                w *= comb(avail[r], n)
                if not w:
                    break
            if w:
                total += w * table[kept + key]
                weight += w
        return total / weight if weight else table[kept]

    def best_discard(self, ranks: tuple[int, ...], min_count: int = 1, max_count: int = 4) -> tuple[int, ...]:
        """The indices of ``ranks`` (a hand's natural ranks, in the order of its cards) to
        throw: strategy.js ``decideDiscard`` (first best mask, fewer cards on a tie)."""
        code = sum(_WEIGHT[r] for r in ranks)
        if min_count == 1 and max_count >= len(ranks) and tuple(sorted(ranks)) == ranks:
            got = self._discards.get(code)
            if got is not None:
                return got
        else:
            code = -1
        avail = [4] * 10
        for r in ranks:
            avail[r] -= 1
        n = len(ranks)
        best: tuple[int, ...] = ()
        best_u = -math.inf
        for mask in range(1, 1 << n):
            thrown = tuple(i for i in range(n) if mask & (1 << i))
            k = len(thrown)
            if k < min_count or k > max_count:
                continue
            kept = sum(_WEIGHT[ranks[i]] for i in range(n) if not mask & (1 << i))
            u = self.expected_utility(kept, k, avail) - 1e-6 * k
            if u > best_u:
                best_u, best = u, thrown
        if code >= 0:
            self._discards[code] = best
        return best


_TABLES: dict[int, _Tables] = {}


def tables(kings: int) -> _Tables:
    """The (cached) tables for a deck of ``kings`` kings."""
    t = _TABLES.get(kings)
    if t is None:
        t = _TABLES[kings] = _Tables(kings)
    return t


_SENA_HINTS: dict[Sena, tuple[int, ...]] = {
    Sena.DOS_REYES: (GRANDE,), Sena.TRES_REYES: (GRANDE, PARES), Sena.CUATRO_REYES: (GRANDE, PARES),
    Sena.DOS_ASES: (CHICA,), Sena.TRES_ASES: (CHICA, PARES), Sena.CUATRO_ASES: (CHICA, PARES),
    Sena.MEDIAS: (PARES,), Sena.DUPLES: (PARES,), Sena.TREINTA_Y_UNA: (JUEGO,),
    Sena.JUEGO: (JUEGO,), Sena.TREINTA: (PUNTO,), Sena.VEINTINUEVE: (PUNTO,),
    Sena.SOLOMILLO: (GRANDE, PARES, JUEGO), Sena.ENVIDAR_MAS: (GRANDE, CHICA, PARES, JUEGO, PUNTO),
}

_BETS = (ActionKind.ENVIDO, ActionKind.ORDAGO)


def _pick(legal: Sequence[object], *actions: Action) -> Action | None:
    for a in actions:
        if a in legal:
            return a
    return None


def _envido_range(legal: Sequence[object]) -> EnvidoRange | None:
    for la in legal:
        if isinstance(la, EnvidoRange):
            return la
    return None


def _envido_action(legal: Sequence[object], amount: int) -> Action | None:
    er = _envido_range(legal)
    if er is None:
        return None
    a = max(er.min_amount, amount)
    if er.max_amount is not None:
        a = min(a, er.max_amount)
    return envido(a) if a >= er.min_amount else None


class BetView:
    """What a betting decision reads, from an observation or an engine state."""

    __slots__ = ("bet", "cards", "history", "juego_real", "lance", "legal", "mano", "n", "scores", "seat", "target")

    def __init__(
        self, seat: int, n: int, mano: int, cards: Sequence[int], scores: Sequence[int], target: int,
        history: Sequence[object], bet: LiveBet | None, lance: int, legal: Sequence[object], juego_real: bool,
    ) -> None:
        self.seat, self.n, self.mano, self.cards = seat, n, mano, cards
        self.scores, self.target, self.history, self.bet = scores, target, history, bet
        self.lance, self.legal, self.juego_real = lance, legal, juego_real


class JsPolicy:
    """strategy.js for one deck (8 or 4 kings): see the module docstring. Deterministic."""

    def __init__(self, kings: int) -> None:
        self.kings = kings
        self.t = tables(kings)

    # ----------------------------------------------------------------- entry points

    def decide(self, obs: Observation) -> Action:
        """The decision for an SDK observation (always one of its legal actions)."""
        legal = obs.legal_actions
        if obs.phase is Phase.MUS:
            return self.mus(obs.cards, legal)
        if obs.phase is Phase.DISCARD:
            dr = legal.discard_range
            assert dr is not None
            return self.discard_from(dr)
        assert obs.lance is not None
        view = BetView(
            obs.seat, obs.rules.players, obs.mano, obs.cards, obs.scores,
            obs.target_points or obs.rules.target_points, obs.history, obs.bet, int(obs.lance), legal,
            _real(obs.rules.juego_real),
        )
        return self.bet_view(view)

    def __call__(self, state: MusState) -> Action:
        """The decision of ``state.to_act`` on an engine state (for playouts)."""
        seat = state.to_act
        assert seat is not None
        phase = state.phase
        cards = state.hands[seat]
        if phase is Phase.MUS:
            return self.mus(cards, (MUS, NO_MUS))
        legal = state.legal_actions()
        if phase is Phase.DISCARD:
            dr = legal[0]
            assert isinstance(dr, DiscardRange)
            return self.discard_from(dr)
        lance = state.current_lance
        assert lance is not None
        rules = state.rules
        view = BetView(
            seat, state.n, state.mano, cards, state.scores, rules.target_points, state.history_events,
            state.bet, int(lance), legal, _real(rules.juego_real),
        )
        return self.bet_view(view)

    # ----------------------------------------------------------------- phases

    def code(self, cards: Sequence[int]) -> int:
        rb = _RANK_BITS
        return sum(rb[c] for c in cards)

    def mus_good(self, cards: Sequence[int]) -> bool:
        """strategy.js ``decideMus``: whether the hand is good enough to cut the mus."""
        t = self.t
        code = self.code(cards)
        v = t.values[code]
        sg = t.strength(code, GRANDE)
        sc = t.strength(code, CHICA)
        pares = int(v.pares)
        return (
            v.total == 31
            or pares >= 2
            or (pares > 0 and sg > 0.85)
            or (v.total >= 31 and pares > 0)
            or (v.total >= 31 and sg > 0.9)
            or (pares > 0 and sc > 0.93 and v.total == 32)
            or (v.kings >= 2 and v.total >= 31)
        )

    def mus(self, cards: Sequence[int], legal: Sequence[object]) -> Action:
        first, second = (NO_MUS, MUS) if self.mus_good(cards) else (MUS, NO_MUS)
        got = _pick(legal, first, second)
        assert got is not None
        return got

    def discard_from(self, dr: DiscardRange) -> Action:
        cards = list(dr.cards)
        ranks = tuple(c >> 2 for c in cards)
        idx = self.t.best_discard(ranks, max(1, dr.min_count), min(len(cards), dr.max_count))
        return discard([cards[i] for i in idx])

    def discard(self, cards: Sequence[Card]) -> Action:
        """The discard of a whole hand (one to four cards)."""
        return self.discard_from(DiscardRange(tuple(sorted(cards))))

    # ----------------------------------------------------------------- betting

    def win_chance(self, v: BetView) -> tuple[float, float]:
        """strategy.js ``winChance``: (this seat's chance to win the lance, the team's)."""
        t = self.t
        n, seat, mano, lance = v.n, v.seat, v.mano, v.lance
        us = seat & 1
        among = lance in (PARES, JUEGO)
        opponents = [s for s in range(n) if s != seat and (s & 1) != us]
        partners = [s for s in range(n) if s != seat and (s & 1) == us]
        active = opponents
        partner_in = bool(partners)
        partner_strong = False
        bets_here = 0
        for e in v.history:
            kind = e.kind  # type: ignore[attr-defined]
            if kind is EventKind.DECLARATION:
                pass
            elif kind is EventKind.BET:
                if e.lance == lance and e.action.kind in _BETS:  # type: ignore[attr-defined]
                    bets_here += 1
                    s = e.seat  # type: ignore[attr-defined]
                    if s != seat and (s & 1) == us:
                        partner_strong = True
            elif kind is EventKind.SIGNAL:
                s = e.seat  # type: ignore[attr-defined]
                if s != seat and (s & 1) == us and lance in _SENA_HINTS.get(e.sena, ()):  # type: ignore[attr-defined]
                    partner_strong = True
        if among:
            holders: dict[int, bool] = {}
            for e in v.history:
                if e.kind is EventKind.DECLARATION and e.lance == lance:  # type: ignore[attr-defined]
                    holders[e.seat] = bool(e.value)  # type: ignore[attr-defined]
            if holders:
                active = [s for s in opponents if holders.get(s)]
                partner_in = any(holders.get(s) for s in partners)
        code = self.code(v.cards)
        ahead = t.strength(code, lance, among, 1.0)
        behind = t.strength(code, lance, among, 0.0)
        bet = v.bet
        bettor = bet.seat if bet is not None else -1
        floor = 0.0 if bet is None else 0.92 if bet.is_ordago else 0.75 if bets_here >= 2 else 0.5
        sure31 = lance == JUEGO and t.values[code].total == 31 and not v.juego_real
        pos = (seat - mano) % n
        p = 1.0
        for o in active:
            after = (o - mano) % n > pos
            if sure31 and after:
                continue
            f = ahead if after else behind
            if o == bettor:
                f = max(0.0, min(1.0, (f - floor) / (1 - floor)))
            p *= f
        q = 0.0
        if partner_in:
            q = 0.3 if among else 0.2
            if partner_strong:
                q = 0.55
        return p, min(1.0, p + (1 - p) * q)

    def bet_view(self, v: BetView) -> Action:
        """strategy.js ``decideBet``."""
        legal = v.legal
        me, p = self.win_chance(v)
        us = v.seat & 1
        theirs = v.scores[1 - us]
        they_close = theirs >= v.target - 6
        bet = v.bet
        can_ordago = ORDAGO in legal
        if bet is None:
            if can_ordago and (me >= 0.985 or (they_close and me >= 0.9)):
                return ORDAGO
            if p >= 0.62:
                a = _envido_action(legal, 4 if p >= 0.82 else 2)
                if a is not None:
                    return a
            got = _pick(legal, PASO, NO_QUIERO, NO_QUEREMOS)
            assert got is not None
            return got
        stake = bet.stake
        deje = bet.deje or 1
        decline_loses = theirs + deje >= v.target
        if bet.is_ordago:
            return _answer(legal, decline_loses or me >= 0.6 or (they_close and me >= 0.35))
        if can_ordago and me >= 0.95 and (stake >= 6 or they_close):
            return ORDAGO
        if me >= 0.8 and stake < 12:
            a = _envido_action(legal, 2)
            if a is not None:
                return a
        value = 1.5 if v.lance == PARES else 2.3 if v.lance == JUEGO else 1.0 if v.lance == PUNTO else 0.0
        threshold = (stake - deje) / (2 * stake + 2 * value) + 0.05
        return _answer(legal, decline_loses or me >= threshold)


def _answer(legal: Sequence[object], accept: bool) -> Action:
    yes = _pick(legal, QUIERO, QUEREMOS)
    no = _pick(legal, NO_QUIERO, NO_QUEREMOS)
    got = (yes or no) if accept else (no or yes)
    assert got is not None
    return got


def _real(value: object) -> bool:
    return value is not JuegoReal.OFF
