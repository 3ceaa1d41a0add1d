"""The observation vector of :mod:`mus_rl.encode`, kept up to date from each action's events.

:func:`mus_rl.encode.encode` builds the vector from a seat's view: obviously holding only
what the seat may know, but rebuilding the view and walking the hand's whole history at
every step costs several engine actions. :class:`StateEncoder` gives the same vector
(``tests/rl/test_fast_encode.py`` compares the two over thousands of random steps) for a
fraction of that:

- the *public* entries of the seats (mus calls, discards, declarations and bets) are
  kept once for all observers, in absolute seat order, and updated from the events
  appended since the last call; each encode copies them into the observer's row rotated
  to its own point of view (two slice copies); the lances' outcomes, the same for every
  observer, are written into every row when a lance ends;
- the *private* block (the seat's cards, the cards it threw, its hand's strength) is
  kept per seat and rebuilt only when those cards change;
- the rest (scores, phase, lance, live bet) is a few numbers read from the state.

What it reads from the engine is what ``view(seat)`` holds: the seat's own cards
(:meth:`~mus_core.state.MusState.cards_of`, :meth:`~mus_core.state.MusState.own_discards_of`),
the public events (señas are skipped, as :func:`~mus_rl.encode.encode` skips them) and
the public scalars.
"""

from __future__ import annotations

import numpy as np
from mus_core.actions import ActionKind, DiscardRange, LegalAction
from mus_core.cards import Card
from mus_core.evaluate import RANK_BITS
from mus_core.events import Event, EventKind, Lance, Phase
from mus_core.rules import Rules
from mus_core.state import MusState

from mus_rl.actions import NUM_ACTIONS, legal_indices
from mus_rl.encode import _BET_SLOT, _LANCE_F, _OUTCOME_SLOT, _SEAT_F, _hand_features, vector_size

_E_BET, _E_MUS, _E_DISCARD = EventKind.BET, EventKind.MUS_CALL, EventKind.DISCARD
_E_DECL, _E_END, _K_MUS, _PARES = EventKind.DECLARATION, EventKind.LANCE_END, ActionKind.MUS, Lance.PARES
_E_REPL = EventKind.REPLACEMENTS

_Numbers = tuple[int, int, int, Phase, Lance | None, int, int, int, int, int, int, int, bool]
"""What :meth:`MusState.public_numbers` gives."""


def _floats(array: np.ndarray) -> memoryview[float]:
    """The items of a contiguous ``float32`` array as a memoryview (writes go to it)."""
    return array.data.cast("B").cast("f")


class StateEncoder:
    """Encodes seats of :class:`~mus_core.state.MusState` objects of one ``rules``.

    It keeps one vector per seat and follows one state at a time (the last one given):
    another state, or a new hand, starts the vectors afresh from that hand's events, so
    any state may be given, in any order; following one state step by step is what
    makes it cheap.
    """

    def __init__(self, rules: Rules) -> None:
        n = self.n = rules.players
        self.rules = rules
        self.size = size = vector_size(n)
        self._phase_at = 91 + n
        seats_at = self._seats_at = self._phase_at + 4 + 5 + 5 + 4
        self._lances_at = seats_at + _SEAT_F * n
        self._target = rules.target_points
        self._games = rules.games_to_win
        self._rows = np.zeros((n, size), np.float32)
        # Single entries and short runs are written through memoryviews of the rows: a
        # memoryview's item write costs half a numpy array's, a slice copy a fifth.
        self._zeros = _floats(np.zeros(91, np.float32))
        self._zero_numbers = _floats(np.zeros(seats_at - 91, np.float32))
        self._row_of = list(self._rows)  # each seat's row, a view made once (not at each encode)
        self._mv_of = [_floats(row) for row in self._row_of]
        # The seats' public entries, once, in absolute seat order (seat s's entry k at
        # 12 * s + k); observer o's row holds them rotated, seat s at 12 * ((s - o) % n),
        # copied in at each encode as two slices (cheaper than a write per observer).
        self._pub = _floats(np.zeros(_SEAT_F * n, np.float32))
        self._zero_pub = _floats(np.zeros(_SEAT_F * n, np.float32))
        self._features: dict[int, memoryview[float]] = {}
        self._state: MusState | None = None
        self._hand = -1
        self._done = 0  # events of the hand already folded into the rows
        self._bet_lance: Lance | None = None  # the lance whose bets the bet slots hold
        self._bet_slot = [-1] * n  # per seat, its bet slot set (7..11), or -1
        self._dirty = [True] * n  # the seat's cards may have changed since its row's private block

    def encode(self, state: MusState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The vector of ``seat`` in ``state`` (equal to ``encode(state.view(seat))``),
        a new array, or written into ``out`` when given (and then returned).

        Raises:
            ValueError: ``state`` has other rules than the encoder's, or no seat ``seat``.
        """
        if state is not self._state and state.rules != self.rules:
            raise ValueError(f"a state of other rules ({state.rules}): this encoder is for {self.rules}")
        if not 0 <= seat < self.n:
            raise ValueError(f"no seat {seat} at a {self.n}-player table")
        numbers = state.public_numbers()  # one call for what _sync and the numbers below read
        self._sync(state, numbers)
        row = self._mv_of[seat]
        if self._dirty[seat]:
            self._private_block(state, seat, row)
        cut, end = _SEAT_F * seat, self._lances_at
        row[self._seats_at:end - cut] = self._pub[cut:]  # seats o .. n-1
        if cut:
            row[end - cut:end] = self._pub[:cut]  # then seats 0 .. o-1
        # The numbers: position, phase, lance, scores, games, discard rounds, the live bet
        # (here, not in a method of their own: a call costs as much as a few writes).
        _, _, mano, phase, lance, score0, score1, games0, games1, discard_round, bet_team, stake, ordago = numbers
        i = self._phase_at
        row[91:self._seats_at] = self._zero_numbers
        row[91 + (seat - mano) % self.n] = 1.0
        if lance is not None:
            row[i + 2] = 1.0  # phase BETTING
            row[i + 4 + lance] = 1.0
            if bet_team >= 0:
                row[i + 14] = 1.0
                row[i + 15] = min(stake / self._target, 1.0)
                row[i + 16] = ordago
                row[i + 17] = bet_team == seat & 1
        else:
            row[i + phase] = 1.0
        i += 9
        if seat & 1:
            ours, theirs, ours_g, theirs_g = score1, score0, games1, games0
        else:
            ours, theirs, ours_g, theirs_g = score0, score1, games0, games1
        if ours:
            row[i] = min(ours / self._target, 1.0)
        if theirs:
            row[i + 1] = min(theirs / self._target, 1.0)
        if ours_g:
            row[i + 2] = ours_g / self._games
        if theirs_g:
            row[i + 3] = theirs_g / self._games
        if discard_round:
            row[i + 4] = min(discard_round / 4.0, 1.0)
        if out is None:
            return self._row_of[seat].copy()  # a copy the caller owns
        out[:] = self._row_of[seat]
        return out

    def _private_block(self, state: MusState, seat: int, row: memoryview[float]) -> None:
        """The seat's cards, the cards it threw and its hand's strength (entries 0..90)."""
        cards = state.cards_of(seat)
        row[:91] = self._zeros
        for c in cards:
            row[c] = 1.0
        for c in state.own_discards_of(seat):
            row[40 + c] = 1.0
        if len(cards) == 4:  # not while waiting for replacements
            bits = RANK_BITS  # rank_code(cards), without its generator: once per seat and hand
            code = bits[cards[0]] + bits[cards[1]] + bits[cards[2]] + bits[cards[3]]
            features = self._features.get(code)
            if features is None:
                features = self._features[code] = _floats(np.array(_hand_features(cards, self.rules), np.float32))
            row[80:91] = features
        self._dirty[seat] = False

    def _sync(self, state: MusState, numbers: _Numbers) -> None:
        """Fold the events appended since the last call into the rows."""
        hand, length = numbers[0], numbers[1]
        if state is not self._state or hand != self._hand or length < self._done:
            self._state, self._hand, self._done = state, hand, 0
            self._rows.fill(0.0)
            self._pub[:] = self._zero_pub
            self._bet_lance = None
            self._bet_slot = [-1] * self.n
            self._dirty = [True] * self.n
        if length > self._done:
            self._fold(state.history_from(self._done))
            self._done = length
        current = numbers[4]
        if current is not self._bet_lance:
            # Only the current lance's bets are shown: none yet in a lance just opened.
            self._clear_bets()
            self._bet_lance = current

    def _clear_bets(self) -> None:
        for s, slot in enumerate(self._bet_slot):
            if slot >= 0:
                self._pub[_SEAT_F * s + slot] = 0.0
                self._bet_slot[s] = -1

    def _fold(self, events: tuple[Event, ...]) -> None:
        pub = self._pub
        for e in events:
            kind = e.kind
            seat = e.seat
            if seat is None:
                if kind is _E_END and e.lance is not None and e.outcome is not None:
                    col = self._lances_at + _LANCE_F * int(e.lance)
                    self._rows[:, col] = 1.0
                    self._rows[:, col + _OUTCOME_SLOT[e.outcome]] = 1.0
                elif kind is _E_REPL:
                    self._dirty = [True] * self.n
            elif kind is _E_BET:
                action = e.action
                if action is None:
                    continue
                if e.lance is not self._bet_lance:  # the first bet of a lance
                    self._clear_bets()
                    self._bet_lance = e.lance
                base = _SEAT_F * seat
                if self._bet_slot[seat] >= 0:
                    pub[base + self._bet_slot[seat]] = 0.0
                self._bet_slot[seat] = slot = _BET_SLOT[action.kind]
                pub[base + slot] = 1.0
            elif kind is _E_MUS:
                if e.action is not None:
                    mus = e.action.kind is _K_MUS
                    pub[_SEAT_F * seat] = 1.0 if mus else 0.0
                    pub[_SEAT_F * seat + 1] = 0.0 if mus else 1.0
            elif kind is _E_DISCARD:
                pub[_SEAT_F * seat + 2] = e.value / 4.0
                self._dirty[seat] = True
            elif kind is _E_DECL:
                pub[_SEAT_F * seat + (3 if e.lance is _PARES else 5) + (0 if e.value else 1)] = 1.0


class MaskCache:
    """Legal-action masks (:mod:`mus_rl.actions` indices) of the engine's legal tuples.

    The engine shares its betting tuples between states and has one for the mus phase,
    so a mask is looked up by the tuple's identity (the cache holds the tuple, so the
    identity cannot be reused by another object while it is cached); a discard's mask
    depends only on the counts allowed and the hand's size.
    """

    _LIMIT = 4096

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[tuple[LegalAction, ...], np.ndarray]] = {}
        self._discards: dict[tuple[int, int, int], np.ndarray] = {}

    def mask(self, legal: tuple[LegalAction, ...]) -> np.ndarray:
        """A new ``int8`` mask of ``legal`` (a ``MusState.legal_actions()``)."""
        hit = self._by_id.get(id(legal))  # first: most steps are bets
        if hit is not None and hit[0] is legal:
            return hit[1].copy()
        if len(legal) == 1 and isinstance(legal[0], DiscardRange):
            entry = legal[0]
            key = (entry.min_count, entry.max_count, len(entry.cards))
            found = self._discards.get(key)
            if found is None:
                found = self._discards[key] = self._build(legal, entry.cards)
            return found.copy()
        if len(self._by_id) >= self._LIMIT:
            self._by_id.clear()
        mask = self._build(legal, ())
        self._by_id[id(legal)] = (legal, mask)
        return mask.copy()

    @staticmethod
    def _build(legal: tuple[LegalAction, ...], cards: tuple[Card, ...]) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[legal_indices(legal, cards)] = 1
        return mask
