"""The match state machine: every rule of docs/rules.md, as queries and one checked ``apply``.

:class:`MusState` holds a whole match (games, hands, the mus phase, the lances, the
betting, the count). It is mutable for speed (search bots run it in their inner loop);
:meth:`MusState.clone` gives an independent copy. Everything random comes from the
seed given at construction (or an explicit deck order), so the same seed and the same
actions always give the same match.

Every random draw is a keyed pseudo-random function of the seed (BLAKE2b keyed with
the seed, over a label naming the draw): the deal of hand ``k`` is ``PRF(seed, "deal",
k)``, the first dealer ``PRF(seed, "dealer")``, the ``r``-th reshuffle of hand ``k``
``PRF(seed, "reshuffle", k, r)`` and the ``c``-th seña interception draw ``PRF(seed,
"sena", c)``. A seat's own cards therefore say nothing about the seed, nor about the
other deals, unless the seed itself can be guessed (a small seed can: a league or match
run for real draws a 128-bit secret).

Typical use::

    state = MusState.new(Rules(), seed=7)
    while not state.is_terminal:
        seat = state.to_act
        action = choose(state.view(seat))     # an Observation: only what seat may know
        state.apply(action)                   # raises IllegalActionError, state unchanged

Seats are numbered in turn order (counter-clockwise); the team of seat ``s`` is
``s % 2``; mano is ``dealer + 1``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from mus_core._deprecation import deprecated, module_aliases
from mus_core.actions import (
    MUS,
    NO_MUS,
    NO_QUEREMOS,
    NO_QUIERO,
    ORDAGO,
    PASO,
    QUEREMOS,
    QUIERO,
    Action,
    DiscardRange,
    EnvidoRange,
    LegalAction,
)
from mus_core.cards import CARDS, Card
from mus_core.errors import IllegalActionError, IllegalSignalError, InvalidActionError
from mus_core.evaluate import PARES_DUPLES, PARES_MEDIAS, PARES_PAR, RANK_BITS, HandValue, table
from mus_core.events import (
    Declarations,
    Event,
    EventKind,
    HandEnd,
    HandEndKind,
    HandResult,
    Lance,
    LanceOutcome,
    LanceResult,
    LiveBet,
    Phase,
    Sena,
)
from mus_core.observation import LegalActions
from mus_core.observation import Observation as Observation  # re-exported: its home in 0.1.0
from mus_core.rules import MusCorrido, Rules, SignalMode

GRANDE, CHICA, PARES, JUEGO, PUNTO = Lance
_K_MUS, _K_NO_MUS, _K_DISCARD, _K_PASO, _K_ENVIDO = 0, 1, 2, 3, 4
_K_QUIERO, _K_NO_QUIERO, _K_ORDAGO, _K_QUEREMOS, _K_NO_QUEREMOS = 5, 6, 7, 8, 9

_MUS_LEGAL: tuple[LegalAction, ...] = (MUS, NO_MUS)
_ORDAGO_ANSWERS: tuple[LegalAction, ...] = (NO_QUIERO, QUIERO)
# Event instances that carry no seat-specific data are shared.
_LANCE_START = {lance: Event(EventKind.LANCE_START, lance=lance) for lance in Lance}

SEED_LIMIT = 1 << 256
"""Seeds are integers in ``0 <= seed < SEED_LIMIT`` (the PRF's 32-byte key)."""

# Events are immutable and few distinct ones recur in every hand, so they are interned:
# building a named tuple per action costs more than the rest of a betting step.
_EVENTS: dict[tuple[object, ...], Event] = {}


def _event(kind: EventKind, seat: int | None, lance: Lance | None, action: Action | None, value: int = 0) -> Event:
    key = (kind, seat, lance, None if action is None else (action.kind, action.amount), value)
    event = _EVENTS.get(key)
    if event is None:
        event = Event(kind, seat, lance, action, value)
        if action is None or (action.kind != _K_DISCARD and action.amount < 64):
            _EVENTS[key] = event
    return event


def _orders(n: int) -> tuple[tuple[int, ...], ...]:
    """For each seat, the n seats in turn order starting with it."""
    return tuple(tuple((m + i) % n for i in range(n)) for m in range(n))


_ORDERS = {n: _orders(n) for n in (2, 4, 6)}

# The betting's legal tuples, shared by every state (there are few: the key is the
# stake cap, whether a bet is live, its stake (-1 for an órdago) and the plural answers).
# Sharing them lets callers cache per tuple identity (mus_rl's action masks do).
_LEGAL_BETS: dict[tuple[int | None, bool, int, bool], tuple[LegalAction, ...]] = {}


_former = module_aliases(__name__, {"SeatView": (Observation, "Observation")})


def __getattr__(name: str) -> object:
    """Former names, with a ``DeprecationWarning``: ``SeatView`` is :class:`Observation`."""
    return _former(name)


# A frozen dataclass's __init__ sets each of its fields through object.__setattr__,
# which made building the view cost more than an engine action. The slots' own
# descriptors set them directly: the same object, about half the cost.
_OBS_SETTERS = tuple(getattr(Observation, f.name).__set__ for f in fields(Observation))
_NEW = object.__new__
_BET_SETTERS = tuple(getattr(LiveBet, f.name).__set__ for f in fields(LiveBet))


def _observation(*values: Any) -> Observation:
    """An :class:`Observation` of ``values`` given in field order (all of them)."""
    obs = _NEW(Observation)
    for setter, value in zip(_OBS_SETTERS, values, strict=True):
        setter(obs, value)
    return obs


_NO_LEGAL = LegalActions(())
_WRAPPED: dict[int, tuple[tuple[LegalAction, ...], LegalActions]] = {}
"""The engine's shared legal tuples (:data:`_LEGAL_BETS`, the mus phase's), wrapped once
each, by identity (the tuple is kept, so its id is never reused while cached)."""


def _legal_of(legal: tuple[LegalAction, ...]) -> LegalActions:
    """``legal`` as a view's :class:`LegalActions`: the same object for the same shared
    tuple (callers may cache per identity, as mus_rl's action masks do)."""
    hit = _WRAPPED.get(id(legal))
    if hit is not None and hit[0] is legal:
        return hit[1]
    wrapped = LegalActions(legal)
    if len(_WRAPPED) < 4096:  # the shared tuples are few; a discard's is new each time
        _WRAPPED[id(legal)] = (legal, wrapped)
    return wrapped


class MusState:
    """A whole match of Mus: see the module docstring.

    Its state changes only through :meth:`apply` and :meth:`give_sena`; everything else
    is read through read-only properties and queries.
    """

    # Attributes are listed for clone() and for readers; all are private, read through
    # the properties below.
    __slots__ = (
        "_a_idx",
        "_accepted",
        "_alive",
        "_answerers",
        "_bet_memo",
        "_bet_seat",
        "_bet_team",
        "_chance_reshuffles",
        "_corrido",
        "_deal_from_mano",
        "_deal_ref",
        "_deal_start",
        "_dealer",
        "_declarations",
        "_deje",
        "_discard_round",
        "_discard_seq",
        "_due",
        "_eligible",
        "_evals",
        "_game_no",
        "_games",
        "_hand_no",
        "_hand_results",
        "_hands",
        "_history",
        "_is_ordago",
        "_lance",
        "_lance_state",
        "_mano",
        "_mus_calls",
        "_n",
        "_phase",
        "_pile",
        "_prf",
        "_r_idx",
        "_reshuffles",
        "_round_discards",
        "_rules",
        "_scores",
        "_scores_before",
        "_sena_draws",
        "_sig_turn_used",
        "_sig_vis",
        "_sig_window",
        "_stake",
        "_stock",
        "_table",
        "_thrown",
        "_to_act_seat",
        "_vacas",
        "_winner",
    )

    _rules: Rules
    _n: int
    _sig_window: set[int] | None
    """Seats that signalled in the open seña window (after a deal or replacements), or None."""
    _prf: _Prf
    """Every random draw; a :meth:`what_if` copy holds a stand-in that aborts on any."""
    _reshuffles: int
    """Reshuffles so far in this hand: the next one draws ``PRF(seed, "reshuffle", hand, this)``."""
    _sena_draws: int
    """Seña interception draws so far in the match (``PRF(seed, "sena", this)`` is next)."""
    _deal_ref: int
    """The reference mano of the current hand: the first hand's mano plus the hand number
    (mod n), the mano this hand would have had had no ``mus_corrido`` cut moved the deal.
    The deal keeps its parity (see :meth:`_start_hand`)."""
    _deal_from_mano: bool
    """Deal from mano whatever the reference (how hand logs of schema 1 were dealt)."""

    # ------------------------------------------------------------------ construction

    def __init__(self, rules: Rules, seed: int, first_dealer: int) -> None:
        """Prefer :meth:`new` or :meth:`from_deal`; this does not deal.

        Raises:
            ValueError: ``seed`` is not an integer in ``0 <= seed < 2**256``.
        """
        _check_seed(seed)
        self._bet_memo: LiveBet | None = None  # the last LiveBet read (see bet)
        self._rules = rules
        self._n = rules.players
        self._table = table(rules.kings, rules.juego_real)
        # Each draw is keyed by the seed and labelled by what it is for (the hand's deal,
        # its n-th reshuffle, the n-th seña draw), so the deal of hand k depends only on
        # the seed and k, whatever was played before: duplicate leagues rely on it.
        self._prf = _Prf(seed)
        self._reshuffles = 0
        self._chance_reshuffles = False
        self._due: tuple[Card, ...] | None = None
        self._sena_draws = 0
        self._scores = [0, 0]
        self._games = [0, 0]
        self._vacas = [0, 0]
        self._game_no = 0
        self._hand_no = 0
        self._dealer = first_dealer % self._n
        self._mano = (self._dealer + 1) % self._n
        self._deal_ref = self._mano
        self._deal_from_mano = False
        self._winner: int | None = None
        self._hand_results: tuple[HandResult, ...] = ()

    @classmethod
    def new(
        cls, rules: Rules | None = None, seed: int = 0, first_dealer: int | None = None, *, deal_from_mano: bool = False
    ) -> MusState:
        """A new match, first hand dealt. The first dealer is drawn from the seed unless given (§2.5).

        ``deal_from_mano``: deal every hand from its mano, as the engine did before
        hand-log schema 2 (only to re-play such logs). By default a hand is dealt from
        its mano, or from the seat before when a ``mus_corrido`` cut has moved the mano
        by an odd number of seats (see :meth:`_start_hand`); without ``mus_corrido`` the
        two are the same.

        Raises:
            ValueError: ``seed`` is not an integer in ``0 <= seed < 2**256``.
        """
        rules = rules or Rules()
        state = cls(rules, seed, 0)
        if first_dealer is None:
            # The modulo's bias is 2**-250 at most: n is 2, 4 or 6.
            first_dealer = state._prf.draw(b"dealer") % rules.players
        state._dealer = first_dealer % state._n
        state._mano = (state._dealer + 1) % state._n
        state._deal_ref = state._mano
        state._deal_from_mano = deal_from_mano
        state._start_hand(None)
        return state

    @classmethod
    def from_deal(
        cls,
        rules: Rules,
        hands: Sequence[Sequence[int]],
        *,
        mano: int = 0,
        stock: Sequence[int] | None = None,
        scores: tuple[int, int] = (0, 0),
        games_won: tuple[int, int] = (0, 0),
        seed: int = 0,
        hand_no: int = 0,
        game_no: int = 0,
    ) -> MusState:
        """A match whose current hand has the given cards (scenarios, tests, search, replay).

        ``hands[s]`` is seat ``s``'s four cards; ``stock`` the stock from the top (by
        default the other cards, shuffled with ``seed``). Later hands are dealt from
        ``seed``. ``hand_no`` and ``game_no`` number the hand and its game in the match
        (a replay re-plays a logged hand as that hand: its reshuffles, and the deals of
        the hands after it, draw what the match's did).

        Raises:
            ValueError: wrong card counts, a card twice, bad scores, or a seed outside
                ``0 <= seed < 2**256``.
        """
        _check_seed(seed)
        n = rules.players
        if len(hands) != n or any(len(h) != 4 for h in hands):
            raise ValueError(f"hands: need {n} hands of 4 cards")
        dealt = [c for h in hands for c in h]
        dealt_set = set(dealt)  # once: the forward model calls from_deal thousands of times a decision
        rest = [c for c in range(40) if c not in dealt_set]
        if stock is None:
            # Not the keyed PRF: scenario files and golden vectors rely on this stock
            # order, and a scripted deal has no secret to keep.
            random.Random(seed).shuffle(rest)
            stock = rest
        all_cards = dealt + list(stock)
        if sorted(all_cards) != list(range(40)):
            dup = sorted({str(CARDS[c]) for c in all_cards if all_cards.count(c) > 1})
            raise ValueError(
                "hands and stock must hold each of the 40 cards once"
                + (f" (repeated: {' '.join(dup)})" if dup else f" (have {len(all_cards)})")
            )
        if any(s < 0 or s >= rules.target_points for s in scores):
            raise ValueError(f"scores: each must be in 0..{rules.target_points - 1}")
        if any(g < 0 or g >= rules.games_to_win for g in games_won):
            raise ValueError(f"games_won: each must be in 0..{rules.games_to_win - 1}")
        if hand_no < 0 or game_no < 0 or game_no > hand_no:
            raise ValueError(f"hand_no {hand_no}, game_no {game_no}: need 0 <= game_no <= hand_no")
        state = cls(rules, seed, (mano - 1) % n)
        state._scores = list(scores)
        state._games = list(games_won)
        state._hand_no = hand_no
        state._game_no = game_no
        # Deal order: card k goes to seat mano + k (§2.3); rebuild that order.
        order = [hands[(mano + k) % n][k // n] for k in range(4 * n)] + list(stock)
        state._start_hand(order)
        return state

    def clone(self) -> MusState:
        """An independent copy (for search); the random streams' positions are copied
        too (they are counters: the copy draws what the original would)."""
        return self._copy()

    def what_if(self, action: Action) -> MusState | None:
        """The state after ``action``, this one left unchanged; None when ``action`` is
        not legal or applying it would draw from the random streams (it ends the hand,
        so a new deal follows, a replacement needs a reshuffle, or a seña's
        interception is drawn).

        Cheaper than :meth:`clone` then :meth:`apply`, and it stays a pure function of
        the state: the copy's draws are replaced by a sentinel that aborts it, so an
        action that would draw gives None and never consumes a draw. The referee prepares
        the next request this way while a bot thinks, and keeps the result only if the
        bot's answer is ``action``.
        """
        other = self._copy()
        other._prf = _NO_RANDOM
        try:
            other.apply(action)
        except (_RandomNeeded, IllegalActionError, InvalidActionError):
            return None
        other._prf = self._prf
        return other

    def _copy(self) -> MusState:
        """A copy sharing nothing mutable with this state (the PRF is immutable)."""
        other = MusState.__new__(MusState)
        for name in MusState.__slots__:
            setattr(other, name, getattr(self, name))
        other._scores = self._scores[:]
        other._games = self._games[:]
        other._vacas = self._vacas[:]
        other._hands = [h[:] for h in self._hands]
        other._stock = self._stock[:]
        other._pile = self._pile[:]
        other._round_discards = [d[:] for d in self._round_discards]
        other._history = self._history[:]
        other._sig_vis = dict(self._sig_vis)
        other._sig_window = set(self._sig_window) if self._sig_window is not None else None
        other._alive = self._alive[:]
        other._answerers = self._answerers[:]
        other._lance_state = self._lance_state[:]
        other._declarations = dict(self._declarations)
        other._evals = self._evals[:]
        return other

    # ------------------------------------------------------------------ queries

    @property
    def rules(self) -> Rules:
        """The rules variant of the match."""
        return self._rules

    @property
    def n(self) -> int:
        """Seats at the table (``rules.players``)."""
        return self._n

    @property
    def dealer(self) -> int:
        """The dealer (postre) of the current hand."""
        return self._dealer

    @property
    def mano(self) -> int:
        """The mano of the current hand (a ``mus_corrido`` cut may move it)."""
        return self._mano

    @property
    def hand_no(self) -> int:
        """The current hand's number in the match, from 0 (counted across games)."""
        return self._hand_no

    @property
    def game_no(self) -> int:
        """The current game's number in the match, from 0."""
        return self._game_no

    @property
    def hand_results(self) -> tuple[HandResult, ...]:
        """The results of the finished hands, oldest first."""
        return self._hand_results

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Every seat's current cards, index = seat (the referee's omniscient view; a
        seat sees only its own, in :meth:`view`)."""
        return tuple(tuple(h) for h in self._hands)

    @property
    def stock(self) -> tuple[Card, ...]:
        """The undealt cards, bottom first: the top of the stock (the next card dealt) is last."""
        return tuple(self._stock)

    @property
    def pile(self) -> tuple[Card, ...]:
        """The discard pile of the current hand (cards thrown away and not reshuffled yet)."""
        return tuple(self._pile)

    @property
    def scores(self) -> tuple[int, int]:
        """Team scores in the current game, dejes of this hand included."""
        return (self._scores[0], self._scores[1])

    @property
    def games_won(self) -> tuple[int, int]:
        """Games won by each team in the current vaca."""
        return (self._games[0], self._games[1])

    @property
    def vacas(self) -> tuple[int, int]:
        """Vacas won by each team."""
        return (self._vacas[0], self._vacas[1])

    @property
    def phase(self) -> Phase:
        """What the state waits for (``MATCH_OVER`` once the match is decided)."""
        return self._phase

    @property
    def discard_round(self) -> int:
        """Discard rounds completed in the current hand."""
        return self._discard_round

    @property
    def mus_round(self) -> int:
        """Deprecated alias of :attr:`discard_round`."""
        deprecated("MusState.mus_round", "MusState.discard_round")
        return self._discard_round

    @property
    def is_terminal(self) -> bool:
        """Whether the match is decided."""
        return self._winner is not None

    @property
    def to_act(self) -> int | None:
        """The seat whose action the state waits for, or ``None`` when the match is over
        (or while a reshuffle is due, with :attr:`chance_reshuffles`)."""
        seat = self._to_act_seat
        return None if self._winner is not None or seat < 0 else seat

    @property
    def deal_start(self) -> int:
        """The seat dealt the first card of the current hand: mano, or the seat before
        it when a ``mus_corrido`` cut moved the mano by an odd number of seats in an
        earlier hand (see :meth:`_start_hand`). Fixed when the hand is dealt."""
        return self._deal_start

    @property
    def current_lance(self) -> Lance | None:
        """The lance being bet, or ``None`` outside the betting."""
        return self._lance if self._phase == Phase.BETTING else None

    @property
    def match_winner(self) -> int | None:
        """The team that won the match, once it is over."""
        return self._winner

    @property
    def bet(self) -> LiveBet | None:
        """The live bet waiting for an answer, if any."""
        if self._phase != Phase.BETTING or self._bet_team < 0:
            return None
        # The bet built at the first read while it stands (environments read it at every
        # step; _new_bet, the one place a bet changes, drops it); built through the slots'
        # setters, as the view is (see _observation): the frozen dataclass's __init__ cost
        # more than the rest of an observation vector.
        memo = self._bet_memo
        if memo is not None:
            return memo
        bet = _NEW(LiveBet)
        team, seat, stake, deje, ordago = _BET_SETTERS
        team(bet, self._bet_team)
        seat(bet, self._bet_seat)
        stake(bet, self._stake)
        deje(bet, self._deje)
        ordago(bet, self._is_ordago)
        self._bet_memo = bet
        return bet

    @property
    def live_bet(self) -> LiveBet | None:
        """Deprecated alias of :attr:`bet`."""
        deprecated("MusState.live_bet", "MusState.bet")
        return self.bet

    def legal_actions(self) -> tuple[LegalAction, ...]:
        """What the seat to act may do, in a fixed order.

        MUS phase: ``(mus, no-mus)``. DISCARD: one :class:`DiscardRange`. Betting before
        a bet: ``(paso, EnvidoRange, ordago)``; answering a bet: ``(no-quiero, quiero,
        EnvidoRange, ordago)`` (no raise against an órdago, none when ``max_stake`` leaves
        no room; ``queremos``/``no-queremos`` appended with the plural variant). Empty
        when the match is over.
        """
        phase = self._phase
        if self._winner is not None:
            return ()
        if phase == Phase.MUS:
            return _MUS_LEGAL
        if phase == Phase.DISCARD:
            if self._due is not None:
                return ()
            return (DiscardRange(tuple(sorted(self._hands[self._to_act_seat]))),)
        plural = self._rules.plural_answers_bind_partner and self._bet_team >= 0 and self._r_idx == 0 and len(self._answerers) > 1
        cap = self._rules.max_stake
        key = (cap, self._bet_team >= 0, self._stake if not self._is_ordago else -1, plural)
        cached = _LEGAL_BETS.get(key)
        if cached is not None:
            return cached
        out: list[LegalAction]
        if self._bet_team < 0:
            out = [PASO, EnvidoRange(2, cap), ORDAGO]
        elif self._is_ordago:
            out = list(_ORDAGO_ANSWERS)
        else:
            out = [NO_QUIERO, QUIERO]
            if cap is None:
                out.append(EnvidoRange(2, None))
            elif cap - self._stake >= 2:
                out.append(EnvidoRange(2, cap - self._stake))
            out.append(ORDAGO)
        if plural:
            out += [NO_QUEREMOS, QUEREMOS]
        result = tuple(out)
        if self._stake < 256:  # a bot's huge envidos must not grow a module-level dict
            _LEGAL_BETS[key] = result
        return result

    def is_legal(self, action: Action) -> bool:
        """Whether ``action`` is legal for the seat to act."""
        return self._why_illegal(action) is None

    def view(self, seat: int) -> Observation:
        """What ``seat`` may know now: never another seat's cards (those come only in
        the :class:`HandResult` once the hand is over)."""
        if not 0 <= seat < self._n:
            raise ValueError(f"no seat {seat} at a {self._n}-player table")
        bit = 1 << seat
        if self._sig_vis:
            history = tuple(
                e for i, e in enumerate(self._history) if i not in self._sig_vis or self._sig_vis[i] & bit
            )
        else:
            history = tuple(self._history)
        acting = self.to_act == seat
        # Positional, in field order, through the fast constructor (see _observation).
        return _observation(
            0,  # request_id: no request
            "",  # match_id
            seat,
            Phase.MATCH_OVER if self._winner is not None else self._phase,
            self.current_lance,
            tuple(sorted(self._hands[seat])),
            _legal_of(self.legal_actions()) if acting else _NO_LEGAL,
            self._mano,
            self._dealer,
            (self._scores[0], self._scores[1]),
            history,
            self._rules,
            self._game_no,
            self._hand_no,
            (self._games[0], self._games[1]),
            (self._vacas[0], self._vacas[1]),
            self._rules.target_points,
            self._discard_round,
            self.bet,
            self.legal_senas(seat),
            0,  # deadline_ms
            0,  # time_bank_ms
            self._thrown[seat],
            self.to_act,
        )

    def cards_of(self, seat: int) -> tuple[Card, ...]:
        """``seat``'s own cards, sorted (``view(seat).cards`` without the rest of the view)."""
        return tuple(sorted(self._hands[seat]))

    def own_discards_of(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` threw in this hand, in order (``view(seat).own_discards``)."""
        return self._thrown[seat]

    @property
    def history_len(self) -> int:
        """The number of events of the current hand so far (every seña included)."""
        return len(self._history)

    def public_numbers(self) -> tuple[int, int, int, Phase, Lance | None, int, int, int, int, int, int, int, bool]:
        """Every number of the state that all seats see, in one call (an observation
        encoder reads them at every step, and one call costs less than eleven):
        ``(hand_no, history_len, mano, phase, current_lance, score of team 0, of team 1,
        games won by team 0, by team 1, discard_round, bet_team, bet_stake, bet_is_ordago)``,
        each as its own property gives it (``phase`` is ``MATCH_OVER`` once the match is
        decided, as in a view); the last three are the live :attr:`bet`'s ``team``,
        ``stake`` and ``is_ordago``, or ``(-1, 0, False)`` when there is none (numbers,
        not the ``LiveBet``: building one at each new bet cost an encoder a tenth of a step)."""
        betting = self._phase == Phase.BETTING
        scores, games = self._scores, self._games
        live = betting and self._bet_team >= 0
        return (self._hand_no, len(self._history), self._mano,
                Phase.MATCH_OVER if self._winner is not None else self._phase,
                self._lance if betting else None, scores[0], scores[1], games[0], games[1], self._discard_round,
                self._bet_team if live else -1, self._stake if live else 0, self._is_ordago if live else False)

    def history_from(self, start: int) -> tuple[Event, ...]:
        """``history_events[start:]`` without copying the rest: the public events since
        ``start``, every seña included (for callers that follow a hand incrementally)."""
        return tuple(self._history[start:])

    @property
    def history_events(self) -> tuple[Event, ...]:
        """All public events of the current hand, every seña included."""
        return tuple(self._history)

    # ------------------------------------------------------------------ apply

    def apply(self, action: Action) -> None:
        """Apply the action of the seat to act.

        Raises:
            InvalidActionError: ``action`` is not an :class:`Action`.
            IllegalActionError: it is not legal now; the state is unchanged.
        """
        if not isinstance(action, Action):
            raise InvalidActionError(f"not an Action: {action!r}")
        why = self._why_illegal(action)
        if why is not None:
            raise IllegalActionError(self.to_act, action, self.legal_actions(), why)
        self._sig_window = None
        self._sig_turn_used = False
        phase = self._phase
        if phase == Phase.BETTING:
            self._apply_bet(action)
        elif phase == Phase.MUS:
            self._apply_mus(action)
        else:
            self._apply_discard(action)

    def _why_illegal(self, action: Action) -> str | None:
        """None when legal, else a short reason. The hot path of validation."""
        if self._winner is not None:
            return "the match is over"
        kind = action.kind
        phase = self._phase
        if phase == Phase.BETTING:
            if kind == _K_ENVIDO:
                if self._is_ordago and self._bet_team >= 0:
                    return "an órdago can only be accepted or declined"
                if action.amount < 2:
                    return "an envido adds at least 2 stones"
                cap = self._rules.max_stake
                if cap is not None and (self._stake if self._bet_team >= 0 else 0) + action.amount > cap:
                    return f"the stake would exceed max_stake {cap}"
                return None
            if kind == _K_ORDAGO:
                return "an órdago cannot be raised" if (self._bet_team >= 0 and self._is_ordago) else None
            if self._bet_team < 0:
                return None if kind == _K_PASO else "before a bet: paso, envido or órdago"
            if kind == _K_QUIERO or kind == _K_NO_QUIERO:
                return None
            if kind == _K_QUEREMOS or kind == _K_NO_QUEREMOS:
                if not self._rules.plural_answers_bind_partner:
                    return "plural answers need the plural_answers_bind_partner variant"
                if self._r_idx != 0 or len(self._answerers) < 2:
                    return "a plural answer is only for the first of two or more answerers"
                return None
            return "a bet is live: quiero, no-quiero, a raise or órdago"
        if phase == Phase.MUS:
            return None if kind == _K_MUS or kind == _K_NO_MUS else "say mus or no-mus"
        if self._due is not None:
            return "a reshuffle is due (apply_reshuffle)"
        if kind != _K_DISCARD:
            return "discard 1 to 4 of your cards"
        chosen = action.cards
        hand = self._hands[self._to_act_seat]
        if not 1 <= len(chosen) <= 4 or len(set(chosen)) != len(chosen):
            return "discard 1 to 4 distinct cards"
        for c in chosen:
            if c not in hand:
                return f"{CARDS[c]} is not in the hand"
        return None

    # ------------------------------------------------------------------ deal & mus

    def _start_hand(self, order: list[int] | None) -> None:
        n = self._n
        deck: list[Card]
        if order is None:
            deck = list(CARDS)
            _permute(deck, self._prf.draw(b"deal:%d" % self._hand_no))
        else:
            deck = [CARDS[c] for c in order]
        mano = self._mano
        dealt = 4 * n
        # Card k goes to seat start + k (§2.3): seat start + i gets deck[i], deck[i + n], ...
        # The start is mano, unless a mus_corrido cut (or its all-mus shifts) in an
        # earlier hand moved the mano by an odd number of seats from the reference (the
        # mano without mus_corrido): then the seat before mano, so that the start keeps
        # the reference's parity. Which team gets which cards of hand k then depends
        # only on the seed, k and the first dealer, never on earlier play: the twins of
        # a duplicate league deal (seats exchanged) give each team the cards the other
        # had, under every variant; and when the same team is mano in both twins, the
        # same cards at the same places from mano (docs/league.md, "Duplicate").
        # Without mus_corrido, start is always mano (§2.3 exactly).
        start = mano
        if not self._deal_from_mano and (mano - self._deal_ref) & 1:
            start = (mano - 1) % n
        self._deal_start = start
        hands: list[list[Card]] = [[]] * n
        for i in range(n):
            hands[(start + i) % n] = deck[i:dealt:n]
        self._hands = hands
        # The stock is kept reversed so that drawing from the top is list.pop().
        self._stock = deck[:dealt - 1:-1]
        self._clear_hand(n)
        self._lance = GRANDE
        self._scores_before = (self._scores[0], self._scores[1])
        mc = self._rules.mus_corrido
        first_of_game = not self._hand_results or self._hand_results[-1].game_over
        self._corrido = (mc is MusCorrido.FIRST_HAND_OF_MATCH and not self._hand_results) or (
            mc is MusCorrido.FIRST_HAND_OF_EACH_GAME and first_of_game
        )
        if self._corrido:
            self._sig_window = None  # no señas until the mus is cut (§3.6)
        if self._rules.max_mus_rounds == 0:
            self._corrido = False
            self._start_lances()
        else:
            self._phase = Phase.MUS
            self._to_act_seat = mano

    def _clear_hand(self, n: int) -> None:
        """What a hand starts with, apart from its cards: empty pile, history and bets."""
        self._pile: list[Card] = []
        self._round_discards: list[list[Card]] = [[] for _ in range(n)]
        # Per seat, what it threw this hand: immutable, so a clone shares it.
        self._thrown: tuple[tuple[Card, ...], ...] = ((),) * n
        self._history: list[Event] = []
        self._sig_vis: dict[int, int] = {}
        self._sig_window = set()  # the seña window after the deal
        self._sig_turn_used = False
        self._mus_calls = 0
        self._discard_round = 0
        self._discard_seq = 0
        self._reshuffles = 0
        self._bet_team = -1
        self._is_ordago = False
        self._stake = 0
        self._deje = 0
        self._bet_seat = -1
        self._answerers: list[int] = []
        self._alive: list[bool] = [True] * n
        self._r_idx = 0
        self._a_idx = 0
        self._accepted = False
        self._eligible: list[int] = []
        self._evals: list[HandValue] = []
        self._declarations: dict[Lance, tuple[bool, ...]] = {}
        # Per lance: (outcome, stake, bet_team, deje); filled as lances are decided.
        self._lance_state: list[tuple[LanceOutcome, int, int, int] | None] = [None] * 4

    def _apply_mus(self, action: Action) -> None:
        seat = self._to_act_seat
        self._history.append(_event(EventKind.MUS_CALL, seat, None, action))
        if action.kind == _K_NO_MUS:
            if self._corrido:
                # The player who cuts the mus becomes mano of this hand (§3.6).
                self._mano = seat
                self._dealer = (seat - 1) % self._n
                self._corrido = False
            self._start_lances()
            return
        self._mus_calls += 1
        if self._mus_calls < self._n:
            self._to_act_seat = (seat + 1) % self._n
            return
        self._mus_calls = 0
        if self._corrido:
            # Nominal mano deals the replacements; the next seat is the new nominal mano.
            self._dealer = self._mano
            self._mano = (self._mano + 1) % self._n
        self._phase = Phase.DISCARD
        self._to_act_seat = self._mano
        self._round_discards = [[] for _ in range(self._n)]
        self._discard_seq = 0

    def _apply_discard(self, action: Action) -> None:
        seat = self._to_act_seat
        hand = self._hands[seat]
        for c in action.cards:
            hand.remove(c)
        self._round_discards[seat] = list(action.cards)
        thrown = list(self._thrown)
        thrown[seat] += tuple(action.cards)
        self._thrown = tuple(thrown)
        self._pile.extend(action.cards)
        self._history.append(_event(EventKind.DISCARD, seat, None, None, len(action.cards)))
        self._discard_seq += 1
        if self._discard_seq < self._n:
            self._to_act_seat = (seat + 1) % self._n
            return
        if self._serve_replacements():
            self._after_replacements()

    def _after_replacements(self) -> None:
        self._discard_round += 1
        self._history.append(Event(EventKind.REPLACEMENTS, value=self._discard_round))
        if self._rules.max_mus_rounds is not None and self._discard_round >= self._rules.max_mus_rounds:
            self._corrido = False
            self._start_lances()
            self._sig_window = set()  # the seña window after these replacements (§9.3)
            return
        self._phase = Phase.MUS
        self._to_act_seat = self._mano
        if not self._corrido:
            self._sig_window = set()

    def _serve_replacements(self) -> bool:
        """Deal replacements in turn order from mano, with §3.3 on an empty stock; False
        when it stopped for a reshuffle to be given (``chance_reshuffles``). Each hand is
        refilled to four cards, so serving resumes where it stopped."""
        order = _ORDERS[self._n][self._mano]
        for i, seat in enumerate(order):
            hand = self._hands[seat]
            while len(hand) < 4:
                if not self._stock:
                    fresh = self._reshuffle_pile(len(order) - i, seat)
                    if self._chance_reshuffles:
                        self._due = tuple(fresh)
                        self._to_act_seat = -1  # nobody acts until apply_reshuffle
                        return False
                    _permute(fresh, self._prf.draw(b"reshuffle:%d:%d" % (self._hand_no, self._reshuffles)))
                    self._install_stock(fresh)
                hand.append(self._stock.pop())
        return True

    def _reshuffle_pile(self, missing: int, seat: int) -> list[Card]:
        """The stock ran out while ``missing`` seats (from ``seat``) still need cards
        (§3.3): the cards to reshuffle, taken from the pile."""
        if missing >= 2:
            fresh = self._pile
            self._pile = []
        else:
            aside = self._round_discards[seat]
            fresh = [c for c in self._pile if c not in aside]
            self._pile = list(aside)
        return fresh

    def _install_stock(self, fresh: list[Card]) -> None:
        """``fresh`` (shuffled, top last) becomes the stock."""
        self._reshuffles += 1
        self._stock = fresh
        self._history.append(Event(EventKind.RESHUFFLE, value=len(fresh)))

    @property
    def chance_reshuffles(self) -> bool:
        """Whether reshuffles are given from outside (:meth:`apply_reshuffle`) instead of
        drawn from the seed. Off by default; OpenSpiel's chance nodes turn it on."""
        return self._chance_reshuffles

    @chance_reshuffles.setter
    def chance_reshuffles(self, on: bool) -> None:
        if self._due is not None:
            raise ValueError("a reshuffle is due: apply_reshuffle first")
        self._chance_reshuffles = bool(on)

    @property
    def reshuffle_due(self) -> tuple[Card, ...]:
        """With :attr:`chance_reshuffles`: the cards of the discard pile waiting to be
        shuffled into the stock (no seat acts meanwhile: ``to_act`` is ``None``), in no
        meaningful order; empty when no reshuffle is due."""
        return self._due or ()

    def apply_reshuffle(self, stock: Sequence[int]) -> None:
        """Give the reshuffle that is due: ``stock`` is :attr:`reshuffle_due` in the new
        stock's order, the next card served first. Serving the replacements goes on.

        Raises:
            ValueError: no reshuffle is due, or ``stock`` is not those cards, each once.
        """
        due = self._due
        if due is None:
            raise ValueError("no reshuffle is due")
        if sorted(stock) != sorted(due):
            raise ValueError(f"the reshuffle must order the {len(due)} cards of reshuffle_due, each once")
        self._due = None
        self._install_stock([CARDS[c] for c in reversed(stock)])
        if self._serve_replacements():
            self._after_replacements()

    # ------------------------------------------------------------------ lances

    def _start_lances(self) -> None:
        tbl = self._table
        rb = RANK_BITS
        self._evals = [tbl[rb[h[0]] + rb[h[1]] + rb[h[2]] + rb[h[3]]] for h in self._hands]
        self._phase = Phase.BETTING
        self._open_lance(GRANDE)

    def _order_from_mano(self) -> tuple[int, ...]:
        return _ORDERS[self._n][self._mano]

    def _open_lance(self, lance: Lance) -> None:
        """Start ``lance``, or settle it without betting and move on (§5)."""
        while True:
            self._lance = lance
            order = self._order_from_mano()
            if lance == PARES or lance == JUEGO:
                evals = self._evals
                has = [(evals[s].pares_key if lance == PARES else evals[s].juego_key) > 0 for s in range(self._n)]
                self._declarations[lance] = tuple(has)
                for s in order:
                    self._history.append(_event(EventKind.DECLARATION, s, lance, None, int(has[s])))
                eligible = [s for s in order if has[s]]
                teams = {s & 1 for s in eligible}
                if len(teams) < 2:
                    if not teams and lance == JUEGO:
                        lance = PUNTO  # nobody has juego: punto is played instead
                        continue
                    outcome = LanceOutcome.ONE_TEAM if teams else LanceOutcome.SKIPPED
                    self._lance_state[lance if lance != PUNTO else JUEGO] = (outcome, 0, -1, 0)
                    self._history.append(_lance_end(lance, outcome))
                    if lance == JUEGO:
                        self._count()
                        return
                    lance = JUEGO
                    continue
            else:
                eligible = list(order)
            self._eligible = eligible
            self._a_idx = 0
            self._bet_team = -1
            self._is_ordago = False
            self._stake = 0
            self._deje = 0
            self._answerers = []
            self._r_idx = 0
            self._accepted = False
            self._alive = [False] * self._n
            for s in eligible:
                self._alive[s] = True
            self._history.append(_LANCE_START[lance])
            self._to_act_seat = eligible[0]
            return

    def _apply_bet(self, action: Action) -> None:
        seat = self._to_act_seat
        kind = action.kind
        self._history.append(_event(EventKind.BET, seat, self._lance, action))
        if self._bet_team < 0:  # Phase A: the opening round
            if kind == _K_PASO:
                self._a_idx += 1
                if self._a_idx < len(self._eligible):
                    self._to_act_seat = self._eligible[self._a_idx]
                else:
                    self._end_lance(LanceOutcome.EN_PASO, 0, -1, 0)
                return
            self._new_bet(seat, kind, action.amount, deje=1)
            return
        # Phase B: answering the live bet.
        if kind == _K_NO_QUIERO:
            self._alive[seat] = False
        elif kind == _K_QUIERO:
            self._accepted = True
            if self._is_ordago:
                self._ordago_showdown()
                return
        elif kind == _K_QUEREMOS:
            self._accepted = True
            if self._is_ordago:
                self._ordago_showdown()
                return
            self._r_idx = len(self._answerers)  # the partner is bound, not polled
        elif kind == _K_NO_QUEREMOS:
            for q in self._answerers:
                self._alive[q] = False
            self._r_idx = len(self._answerers)
        else:  # a raise: envido más or órdago
            self._new_bet(seat, kind, action.amount, deje=self._stake)
            return
        self._r_idx += 1
        if self._r_idx < len(self._answerers):
            self._to_act_seat = self._answerers[self._r_idx]
            return
        if self._accepted:
            self._end_lance(LanceOutcome.ACCEPTED, self._stake, self._bet_team, 0)
            return
        # Everybody declined: the deje is credited at once (§7.2).
        team, deje = self._bet_team, self._deje
        self._scores[team] += deje
        self._history.append(Event(EventKind.DEJE, team=team, value=deje))
        stake = self._stake
        self._end_lance(LanceOutcome.DECLINED, stake, team, deje)

    def _new_bet(self, seat: int, kind: int, amount: int, deje: int) -> None:
        team = seat & 1
        self._bet_memo = None  # the bet changes: the next read of `bet` builds the new one
        self._bet_team = team
        self._bet_seat = seat
        self._deje = deje
        if kind == _K_ORDAGO:
            self._is_ordago = True  # the stake stays: it is what a declined órdago raised
        else:
            self._stake += amount  # stake is 0 before the first bet of a lance
        n = self._n
        alive = self._alive
        # The opposing team's live players, in turn order right after the bettor (§6.3).
        self._answerers = [q for q in _ORDERS[n][seat] if alive[q] and (q & 1) != team]
        self._r_idx = 0
        self._accepted = False
        self._to_act_seat = self._answerers[0]

    def _best_seat(self, lance: Lance) -> int:
        """The seat with the best hand in ``lance``; ties go to the seat nearest mano."""
        evals = self._evals
        best_seat = -1
        best = -1
        field = _FIELD[lance]
        for s in self._order_from_mano():
            if lance in (PARES, JUEGO) and not evals[s][field]:
                continue
            v = evals[s][field]
            if v > best:
                best, best_seat = v, s
        return best_seat

    def _ordago_showdown(self) -> None:
        lance = self._lance
        w = self._best_seat(lance)
        team = w & 1
        self._history.append(_lance_end(lance, LanceOutcome.ORDAGO))
        slot = JUEGO if lance == PUNTO else lance
        self._lance_state[slot] = (LanceOutcome.ORDAGO, 0, self._bet_team, 0)
        self._finish_hand(team, HandEnd.of(HandEndKind.ORDAGO, lance), ordago_winner=w)

    def _end_lance(self, outcome: LanceOutcome, stake: int, bet_team: int, deje: int) -> None:
        lance = self._lance
        slot = JUEGO if lance == PUNTO else lance
        self._lance_state[slot] = (outcome, stake, bet_team, deje)
        self._history.append(_lance_end(lance, outcome))
        if deje and self._scores[bet_team] >= self._rules.target_points:
            self._finish_hand(bet_team, HandEnd.of(HandEndKind.DEJE, lance))
            return
        if lance >= JUEGO:
            self._count()
        else:
            self._open_lance(Lance(lance + 1))

    # ------------------------------------------------------------------ count & hand end

    def _team_values(self, team: int, lance: Lance) -> int:
        evals = self._evals
        if lance == PARES:
            return sum(evals[s].pares for s in range(team, self._n, 2))
        return sum(evals[s].juego_value for s in range(team, self._n, 2))

    def _count(self) -> None:
        """The end-of-hand count, lance by lance; stops when a team reaches the target (§7.3, §7.4)."""
        target = self._rules.target_points
        scores = self._scores
        results: list[LanceResult] = []
        game_winner: int | None = None
        ended_by = HandEnd.COUNT
        for slot in (GRANDE, CHICA, PARES, JUEGO):
            state = self._lance_state[slot]
            assert state is not None
            outcome, stake, bet_team, deje = state
            lance = slot
            if slot == JUEGO and JUEGO in self._declarations and not any(self._declarations[JUEGO]):
                lance = PUNTO
            if game_winner is not None:
                results.append(LanceResult(lance, outcome, stake, _opt(bet_team), deje, counted=False))
                continue
            winner_seat: int | None = None
            team: int | None = None
            stake_pts = value_pts = 0
            if outcome is LanceOutcome.SKIPPED:
                pass
            elif outcome is LanceOutcome.DECLINED:
                team = bet_team
                if lance in (PARES, JUEGO):
                    value_pts = self._team_values(team, lance)
                elif lance == PUNTO:
                    value_pts = 1
            else:
                winner_seat = self._best_seat(lance)
                team = winner_seat & 1
                if outcome is LanceOutcome.ACCEPTED:
                    stake_pts = stake
                elif lance in (GRANDE, CHICA, PUNTO):
                    stake_pts = 1  # en paso
                if lance in (PARES, JUEGO):
                    value_pts = self._team_values(team, lance)
                elif lance == PUNTO:
                    value_pts = 1 if outcome is LanceOutcome.ACCEPTED else 0
            points = stake_pts + value_pts
            if team is not None and points:
                scores[team] += points
                if scores[team] >= target:
                    game_winner = team
                    ended_by = HandEnd.of(HandEndKind.COUNT, lance)
            results.append(
                LanceResult(
                    lance, outcome, stake, _opt(bet_team), deje, winner_seat, team,
                    points, stake_pts, value_pts, True,
                )
            )
        self._record_hand(tuple(results), game_winner, ended_by)

    def _finish_hand(self, game_winner: int, ended_by: HandEnd, ordago_winner: int | None = None) -> None:
        """The hand ends before the count: a deje reached the target, or an órdago was accepted."""
        results: list[LanceResult] = []
        for slot in (GRANDE, CHICA, PARES, JUEGO):
            state = self._lance_state[slot]
            lance = slot
            if slot == JUEGO and self._lance == PUNTO:
                lance = PUNTO
            if state is None:
                results.append(LanceResult(lance, LanceOutcome.NOT_PLAYED, counted=False))
                continue
            outcome, stake, bet_team, deje = state
            if outcome is LanceOutcome.ORDAGO:
                assert ordago_winner is not None
                results.append(
                    LanceResult(lance, outcome, 0, _opt(bet_team), 0, ordago_winner, ordago_winner & 1, counted=False)
                )
            else:
                results.append(LanceResult(lance, outcome, stake, _opt(bet_team), deje, counted=False))
        self._record_hand(tuple(results), game_winner, ended_by)

    def _record_hand(self, lances: tuple[LanceResult, ...], game_winner: int | None, ended_by: HandEnd) -> None:
        scores_after = (self._scores[0], self._scores[1])
        game_no = self._game_no
        match_over = False
        if game_winner is not None:
            self._games[game_winner] += 1
            self._game_no += 1
            self._scores = [0, 0]
            if self._games[game_winner] >= self._rules.games_to_win:
                self._vacas[game_winner] += 1
                self._games = [0, 0]
                match_over = self._vacas[game_winner] >= self._rules.vacas_to_win
        # The result carries the games and vacas as they stand after the hand, so that
        # the referee, the bots' notifications and the logs all read one count.
        self._hand_results += (
            HandResult(
                game=game_no,
                hand=self._hand_no,
                dealer=self._dealer,
                mano=self._mano,
                hands=tuple(tuple(sorted(h)) for h in self._hands),
                lances=lances,
                scores_before=self._scores_before,
                scores_after=scores_after,
                game_over=game_winner is not None,
                game_winner=game_winner,
                ended_by=ended_by,
                declarations=Declarations(self._declarations.get(PARES), self._declarations.get(JUEGO)),
                games_won=(self._games[0], self._games[1]),
                vacas_won=(self._vacas[0], self._vacas[1]),
            ),
        )
        self._hand_no += 1
        if match_over:
            self._winner = game_winner
            self._phase = Phase.MATCH_OVER
            self._to_act_seat = -1
            return
        # Rotation: the deal passes one seat to the right (§2.4, §2.6).
        self._dealer = (self._dealer + 1) % self._n
        self._mano = (self._dealer + 1) % self._n
        self._deal_ref = (self._deal_ref + 1) % self._n
        self._start_hand(None)

    # ------------------------------------------------------------------ señas

    def legal_senas(self, seat: int) -> tuple[Sena, ...]:
        """The señas ``seat`` may give now: truthful, in time, and señas enabled (§9)."""
        if not self._may_signal(seat):
            return ()
        true = _true_senas(self._eval_of(seat))
        if Sena.MEDIAS in true and not self._medias_in_time():
            return tuple(s for s in true if s != Sena.MEDIAS)
        return true

    def _eval_of(self, seat: int) -> HandValue:
        return self._evals[seat] if self._evals else self._table[sum(RANK_BITS[c] for c in self._hands[seat])]

    def _medias_in_time(self) -> bool:
        """FEM timing: medias only once the grande lance is over."""
        return not self._rules.signal_timing_rules or (self._phase == Phase.BETTING and self._lance > GRANDE)

    def _may_signal(self, seat: int) -> bool:
        if self._winner is not None or not self._rules.signals_enabled or self._corrido:
            return False
        if seat == self._to_act_seat and not self._sig_turn_used:
            return True
        return self._sig_window is not None and seat not in self._sig_window

    def _sena_true(self, seat: int, sena: Sena) -> bool:
        if sena == Sena.MEDIAS and not self._medias_in_time():
            return False
        return sena in _true_senas(self._eval_of(seat))

    def give_sena(self, seat: int, sena: Sena) -> None:
        """Record a seña by ``seat``: on its turn before acting, or in the window after a deal.

        Raises:
            IllegalSignalError: señas are off, it is not the time, or the seña is untrue.
        """
        if not self._may_signal(seat):
            raise IllegalSignalError(f"S{seat} may not give a seña now")
        if not self._sena_true(seat, sena):
            raise IllegalSignalError(f"seña {sena.name.lower()} is not allowed for S{seat}'s hand now")
        if seat == self._to_act_seat and not self._sig_turn_used:
            self._sig_turn_used = True
        elif self._sig_window is not None:
            self._sig_window.add(seat)
        n = self._n
        if self._rules.signals is SignalMode.PUBLIC:
            mask = (1 << n) - 1
        else:
            mask = 1 << seat
            p = self._rules.interception_p
            for q in range(n):
                if q != seat and ((q & 1) == (seat & 1) or self._uniform() < p):
                    mask |= 1 << q
        self._sig_vis[len(self._history)] = mask
        self._history.append(Event(EventKind.SIGNAL, seat=seat, sena=sena))

    def _uniform(self) -> float:
        """The next seña interception draw, uniform in [0, 1) (53 bits of the PRF)."""
        value = self._prf.draw(b"sena:%d" % self._sena_draws)  # first: a what_if aborts here
        self._sena_draws += 1
        return (value >> 203) * (1.0 / (1 << 53))


def _check_seed(seed: object) -> None:
    """Refuse what is not a seed: before, ``random.Random`` took ``abs()`` of a negative
    seed silently, so ``-1`` dealt as ``1``."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed must be an integer with 0 <= seed < 2**256, not {seed!r}")


class _Prf:
    """The keyed pseudo-random function of a seed: ``draw(label)`` is BLAKE2b keyed with
    the seed's 32 bytes, over ``label``, read as a 256-bit integer. Without the seed, one
    label's value says nothing about another's (BLAKE2b is a PRF when keyed)."""

    __slots__ = ("_base",)

    def __init__(self, seed: int) -> None:
        # A keyed hash object, copied per draw: cheaper than keying a new one each time
        # (the key is a whole compression block).
        self._base = hashlib.blake2b(key=seed.to_bytes(32, "big"), digest_size=32)

    def draw(self, label: bytes) -> int:
        """The 256-bit value of ``label``."""
        h = self._base.copy()
        h.update(label)
        return int.from_bytes(h.digest(), "big")


class _RandomNeeded(Exception):
    """Raised by :data:`_NO_RANDOM`: a :meth:`MusState.what_if` that would draw."""


class _NoRandom:
    """Stands in for the PRF of a :meth:`MusState.what_if` copy: any draw (a deal, a
    reshuffle, a seña's interception) aborts it."""

    def draw(self, label: bytes) -> int:
        raise _RandomNeeded(label.decode())


_NO_RANDOM: Any = _NoRandom()


def _permute(cards: list[Any], value: int) -> None:
    """Fisher-Yates driven by ``value`` read in the factorial number system: the digit
    for position ``i`` is ``value % (i + 1)``, then ``value //= i + 1``. With a 256-bit
    ``value`` and 40 cards (40! < 2**160) every permutation has probability 1/40! within
    a relative error of about 2**-97.

    The digits are taken a group at a time (:func:`_radix_groups`): one division of the
    256-bit value per group, then divisions of a machine-sized remainder. The digits are
    exactly those of the one-at-a-time loop, for less of the big-integer arithmetic."""
    groups = _GROUPS.get(len(cards))
    if groups is None:
        groups = _GROUPS[len(cards)] = _radix_groups(len(cards))
    for modulus, positions in groups:
        value, rest = divmod(value, modulus)
        for i in positions:
            rest, j = divmod(rest, i + 1)
            cards[i], cards[j] = cards[j], cards[i]


def _radix_groups(n: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Positions ``n - 1`` down to 1 in runs whose radices' product stays below 2**62,
    each with that product."""
    out: list[tuple[int, tuple[int, ...]]] = []
    i = n - 1
    while i > 0:
        modulus, positions = 1, []
        while i > 0 and modulus * (i + 1) < 1 << 62:
            modulus *= i + 1
            positions.append(i)
            i -= 1
        out.append((modulus, tuple(positions)))
    return tuple(out)


_GROUPS: dict[int, tuple[tuple[int, tuple[int, ...]], ...]] = {}


_LANCE_ENDS = {(lance, o): Event(EventKind.LANCE_END, lance=lance, outcome=o) for lance in Lance for o in LanceOutcome}


def _lance_end(lance: Lance, outcome: LanceOutcome) -> Event:
    return _LANCE_ENDS[(lance, outcome)]


_FIELD = {GRANDE: 0, CHICA: 1, PARES: 2, JUEGO: 4, PUNTO: 6}
"""Index in :class:`HandValue` of the strength that decides each lance."""


def _opt(team: int) -> int | None:
    return None if team < 0 else team


def _sena_holds(sena: Sena, ev: HandValue) -> bool:
    """Whether a hand-describing seña is true of a hand (§9.2)."""
    if sena == Sena.CORTAR_MUS or sena == Sena.ENVIDAR_MAS:
        return True
    if sena == Sena.CIEGO:
        return not any(_sena_holds(s, ev) for s in _HAND_SENAS)
    return bool(_HAND_TESTS[sena](ev))


_TRUE_SENAS: dict[HandValue, tuple[Sena, ...]] = {}


def _true_senas(ev: HandValue) -> tuple[Sena, ...]:
    """The señas true of a hand, timing aside (cached: there are a few hundred hands)."""
    out = _TRUE_SENAS.get(ev)
    if out is None:
        out = _TRUE_SENAS[ev] = tuple(s for s in Sena if _sena_holds(s, ev))
    return out


_HAND_TESTS = {
    Sena.DOS_REYES: lambda e: e.kings == 2,
    Sena.TRES_REYES: lambda e: e.kings == 3,
    Sena.CUATRO_REYES: lambda e: e.kings == 4,
    Sena.DOS_ASES: lambda e: e.aces == 2,
    Sena.TRES_ASES: lambda e: e.aces == 3,
    Sena.CUATRO_ASES: lambda e: e.aces == 4,
    Sena.PARES: lambda e: e.pares == PARES_PAR,
    Sena.MEDIAS: lambda e: e.pares == PARES_MEDIAS,
    Sena.DUPLES: lambda e: e.pares == PARES_DUPLES,
    Sena.JUEGO: lambda e: e.juego_key > 0 and e.total != 31,
    Sena.TREINTA_Y_UNA: lambda e: e.total == 31,
    Sena.TREINTA: lambda e: e.total == 30,
    Sena.VEINTINUEVE: lambda e: e.total == 29,
    Sena.SOLOMILLO: lambda e: e.kings == 3 and e.aces == 1,
}
_HAND_SENAS = tuple(_HAND_TESTS)
