"""One seat's observation as a fixed-size vector of floats in [0, 1].

The vector is computed from the engine's :class:`~mus_core.state.Observation` alone
(``MusState.view(seat)``): what the seat may know, never another seat's cards. Seats
are written *relative to the observer* (block 0 is the observer, then the next seats in
turn order), so one policy plays every seat. Layout, for a table of ``n`` seats
(:func:`feature_names` names every entry):

- 40: the seat's cards (card number ``rank * 4 + suit``), 40: the cards it threw this hand;
- 11: hand strength: :func:`mus_core.evaluate.strength` per lance (grande, chica,
  pares, juego, punto), the kind of pares (none, par, medias, duples), juego rank / 9,
  total / 40;
- n: the observer's position from mano; 4: phase; 5: lance being bet;
- 4: scores (ours, theirs) / target, games won (ours, theirs) / games to win;
- 1: discard rounds / 4; 4: live bet (live, stake / target, órdago, ours);
- 12 per seat: mus / no-mus in the last mus round, cards discarded last round / 4,
  pares and juego declarations (has, has not), its last bet in this lance (paso,
  envido, quiero, no-quiero, órdago);
- 8 per lance: finished, and its outcome (en paso, accepted, declined, one team,
  skipped, órdago, not played).

Señas are not encoded (the structured information state, the view itself, has them).
"""

from __future__ import annotations

import numpy as np
from mus_core import Observation
from mus_core.actions import ActionKind
from mus_core.evaluate import evaluate, rank_code, strength
from mus_core.events import EventKind, Lance, LanceOutcome, Phase
from mus_core.rules import Rules

_SEAT_F = 12
_LANCE_F = 8
_OUTCOMES = tuple(LanceOutcome)
_BET_SLOT = {
    ActionKind.PASO: 7,
    ActionKind.ENVIDO: 8,
    ActionKind.QUIERO: 9,
    ActionKind.QUEREMOS: 9,
    ActionKind.NO_QUIERO: 10,
    ActionKind.NO_QUEREMOS: 10,
    ActionKind.ORDAGO: 11,
}
_NO_BET = [0.0] * 5
_E_BET, _E_MUS, _E_DISCARD = EventKind.BET, EventKind.MUS_CALL, EventKind.DISCARD
_E_DECL, _E_END, _K_MUS, _PARES = EventKind.DECLARATION, EventKind.LANCE_END, ActionKind.MUS, Lance.PARES
_OUTCOME_SLOT = {o: 1 + i for i, o in enumerate(_OUTCOMES)}
_STRENGTH_CACHE: dict[tuple[int, object, int], tuple[float, ...]] = {}


def vector_size(players: int) -> int:
    """Length of the vector at a table of ``players`` seats."""
    return 80 + 11 + players + 4 + 5 + 4 + 1 + 4 + _SEAT_F * players + _LANCE_F * 5


def feature_names(players: int) -> list[str]:
    """A name per entry of the vector (for inspecting a learned policy)."""
    names = [f"card:{i}" for i in range(40)] + [f"thrown:{i}" for i in range(40)]
    names += [f"strength:{lance.name.lower()}" for lance in Lance]
    names += ["pares:none", "pares:par", "pares:medias", "pares:duples", "juego_rank", "total"]
    names += [f"position:{i}" for i in range(players)] + [f"phase:{p.name.lower()}" for p in Phase]
    names += [f"lance:{lance.name.lower()}" for lance in Lance]
    names += ["score:ours", "score:theirs", "games:ours", "games:theirs", "discard_rounds"]
    names += ["bet:live", "bet:stake", "bet:ordago", "bet:ours"]
    seat_f = ["mus", "no_mus", "discarded", "pares:yes", "pares:no", "juego:yes", "juego:no",
              "bet:paso", "bet:envido", "bet:quiero", "bet:no_quiero", "bet:ordago"]
    names += [f"seat+{r}:{f}" for r in range(players) for f in seat_f]
    names += [f"{lance.name.lower()}:{f}" for lance in Lance for f in ["done", *(o.value for o in _OUTCOMES)]]
    assert len(names) == vector_size(players)
    return names


def _hand_features(cards: tuple[int, ...], rules: Rules) -> tuple[float, ...]:
    # Mus values ignore suits: the rank multiset is the key (at most 715 of them).
    key = (rules.kings, rules.juego_real, rank_code(cards))
    hit = _STRENGTH_CACHE.get(key)
    if hit is not None:
        return hit
    v = evaluate(cards, rules.kings, rules.juego_real)
    out = tuple(strength(cards, lance, rules.kings) for lance in Lance)
    pares = [0.0] * 4
    pares[int(v.pares)] = 1.0
    out += (*pares, v.juego_key / 9.0, v.total / 40.0)
    _STRENGTH_CACHE[key] = out
    return out


def encode(view: Observation, out: np.ndarray | None = None) -> np.ndarray:
    """The vector of ``view`` (``float32``, :func:`vector_size` long), written into
    ``out`` when given (and then returned)."""
    rules = view.rules
    n = rules.players
    # Filled as a Python list and converted once: item assignment on a list is several
    # times cheaper than on a numpy array, and this runs at every step of an RL loop.
    v = [0.0] * vector_size(n)
    me = view.seat
    for c in view.cards:
        v[c] = 1.0
    for c in view.own_discards:
        v[40 + c] = 1.0
    if len(view.cards) == 4:  # not while waiting for replacements
        v[80:91] = _hand_features(tuple(view.cards), rules)
    i = 91
    v[i + (me - view.mano) % n] = 1.0
    i += n
    v[i + int(view.phase)] = 1.0
    i += 4
    if view.lance is not None:
        v[i + int(view.lance)] = 1.0
    i += 5
    team = me & 1
    target = rules.target_points
    v[i] = min(view.scores[team] / target, 1.0)
    v[i + 1] = min(view.scores[1 - team] / target, 1.0)
    v[i + 2] = view.games_won[team] / rules.games_to_win
    v[i + 3] = view.games_won[1 - team] / rules.games_to_win
    v[i + 4] = min(view.discard_round / 4.0, 1.0)
    i += 5
    bet = view.bet
    if bet is not None:
        v[i] = 1.0
        v[i + 1] = min(bet.stake / target, 1.0)
        v[i + 2] = float(bet.is_ordago)
        v[i + 3] = float(bet.team == team)
    i += 4
    _history(view, v, i, n)
    if out is None:
        return np.array(v, dtype=np.float32)
    out[:] = v
    return out


def _history(view: Observation, v: list[float], seats_at: int, n: int) -> None:
    """The per-seat and per-lance blocks, from one pass over the hand's public events."""
    me = view.seat
    lances_at = seats_at + _SEAT_F * n
    current = view.lance
    for e in view.history:
        kind = e.kind
        if kind is _E_BET:
            action, seat = e.action, e.seat
            if e.lance is not current or action is None or seat is None:
                continue
            base = seats_at + _SEAT_F * ((seat - me) % n)
            v[base + 7 : base + 12] = _NO_BET
            v[base + _BET_SLOT[action.kind]] = 1.0
        elif kind is _E_MUS:
            if e.seat is not None and e.action is not None:
                base = seats_at + _SEAT_F * ((e.seat - me) % n)
                mus = e.action.kind is _K_MUS
                v[base] = 1.0 if mus else 0.0
                v[base + 1] = 0.0 if mus else 1.0
        elif kind is _E_DISCARD:
            if e.seat is not None:
                v[seats_at + _SEAT_F * ((e.seat - me) % n) + 2] = e.value / 4.0
        elif kind is _E_DECL:
            if e.seat is not None:
                base = seats_at + _SEAT_F * ((e.seat - me) % n) + (3 if e.lance is _PARES else 5)
                v[base + (0 if e.value else 1)] = 1.0
        elif kind is _E_END and e.lance is not None and e.outcome is not None:
            base = lances_at + _LANCE_F * int(e.lance)
            v[base] = 1.0
            v[base + _OUTCOME_SLOT[e.outcome]] = 1.0
