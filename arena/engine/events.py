"""The vocabulary of a hand: lances, phases, señas, public events and results."""

from __future__ import annotations

import enum
from typing import NamedTuple

from arena.engine.actions import Action
from arena.engine.cards import Card


class Lance(enum.IntEnum):
    """The four lances, in the order they are played and counted (docs/rules.md §5)."""

    GRANDE = 0
    """Highest cards."""
    CHICA = 1
    """Lowest cards."""
    PARES = 2
    """Pairs: par, medias, duples."""
    JUEGO = 3
    """Totals of 31 or more."""
    PUNTO = 4
    """Highest total, played instead of juego when nobody has juego."""


class Phase(enum.IntEnum):
    """What the state is waiting for."""

    MUS = 0
    """A seat says mus or no hay mus."""
    DISCARD = 1
    """A seat chooses its discards."""
    BETTING = 2
    """A seat acts in the betting of the current lance."""
    MATCH_OVER = 3
    """Nothing more: the match is decided."""


class Sena(enum.IntEnum):
    """Señas (signals) between partners, docs/rules.md §9.2; each is checked against the hand."""

    DOS_REYES = 0
    """Exactly two kings."""
    TRES_REYES = 1
    """Exactly three kings."""
    CUATRO_REYES = 2
    """Four kings."""
    DOS_ASES = 3
    """Exactly two aces."""
    TRES_ASES = 4
    """Exactly three aces."""
    CUATRO_ASES = 5
    """Four aces."""
    PARES = 6
    """A single pair (par)."""
    MEDIAS = 7
    """Three of a kind (not before the grande lance is over, with timing rules)."""
    DUPLES = 8
    """Two pairs or four of a kind."""
    JUEGO = 9
    """Juego other than 31."""
    TREINTA_Y_UNA = 10
    """Juego of 31."""
    TREINTA = 11
    """A total of 30 (punto 30)."""
    VEINTINUEVE = 12
    """A total of 29."""
    CIEGO = 13
    """Nothing worth signalling: no other hand seña is true."""
    SOLOMILLO = 14
    """Three kings and an ace (R R R A)."""
    CORTAR_MUS = 15
    """"Let's cut the mus": an intention, always allowed."""
    ENVIDAR_MAS = 16
    """"Bet more": an intention, always allowed."""


class LanceOutcome(enum.Enum):
    """How a lance was decided (the itemised result's first column)."""

    # Members are singletons compared by identity: hash them by identity too, in C
    # (Enum's own __hash__ is Python code, and the engine keys caches by these).
    __hash__ = object.__hash__

    EN_PASO = "en_paso"
    """Everybody passed; the best hand scores at the count."""
    ACCEPTED = "accepted"
    """A bet was accepted; the best hand scores the stake at the count."""
    DECLINED = "declined"
    """A bet was declined; the betting team got the deje at once."""
    ONE_TEAM = "one_team"
    """Only one team had pares/juego: no betting, that team scores its values."""
    SKIPPED = "skipped"
    """Nobody had pares (or juego is replaced by punto): nothing to play."""
    ORDAGO = "ordago"
    """An órdago was accepted: the best hand in the lance won the game at once."""
    NOT_PLAYED = "not_played"
    """The game ended before this lance was played."""


class EventKind(enum.Enum):
    """Kinds of public events in a hand's history."""

    __hash__ = object.__hash__  # see LanceOutcome

    MUS_CALL = "mus_call"
    """``seat`` said mus (``action`` MUS) or cut it (``action`` NO_MUS)."""
    DISCARD = "discard"
    """``seat`` discarded ``value`` cards (which ones is private)."""
    REPLACEMENTS = "replacements"
    """Replacements were dealt; ``value`` is the number of this discard round."""
    RESHUFFLE = "reshuffle"
    """The stock ran out; the discard pile (``value`` cards) was shuffled in (§3.3)."""
    DECLARATION = "declaration"
    """``seat`` has (``value`` 1) or has not (0) pares/juego for ``lance``."""
    LANCE_START = "lance_start"
    """Betting in ``lance`` begins."""
    BET = "bet"
    """``seat`` took betting ``action`` in ``lance``."""
    DEJE = "deje"
    """``team`` was credited ``value`` stones at once for a declined bet."""
    LANCE_END = "lance_end"
    """``lance`` was decided (``outcome``)."""
    SIGNAL = "signal"
    """``seat`` gave ``sena`` (shown only to the seats that see it)."""


class Event(NamedTuple):
    """One public event of a hand (a named tuple: cheap to build, immutable)."""

    kind: EventKind
    seat: int | None = None
    lance: Lance | None = None
    action: Action | None = None
    value: int = 0
    team: int | None = None
    sena: Sena | None = None
    outcome: LanceOutcome | None = None


class LanceResult(NamedTuple):
    """The itemised result of one lance of a hand."""

    lance: Lance
    outcome: LanceOutcome
    stake: int = 0
    """Accepted stake (ACCEPTED), or the stake that was declined (DECLINED)."""
    bet_team: int | None = None
    """Team that made the last bet (ACCEPTED, DECLINED, ORDAGO)."""
    deje: int = 0
    """Stones credited at once to ``bet_team`` when the bet was declined."""
    winner_seat: int | None = None
    """Seat whose hand wins the lance at the count (or the órdago)."""
    winner_team: int | None = None
    """Team credited at the count (for DECLINED pares/juego/punto: the betting team)."""
    points: int = 0
    """Stones credited at the count (0 when nothing, or not counted)."""
    stake_points: int = 0
    """Part of ``points`` from the stake or the en paso stone."""
    value_points: int = 0
    """Part of ``points`` from pares/juego values or the punto stone."""
    counted: bool = True
    """False when the game ended before this lance was counted."""


class HandResult(NamedTuple):
    """Everything that decided one hand, for logs, bots and disputes."""

    game: int
    """Game number in the match, from 0."""
    hand: int
    """Hand number in the match, from 0."""
    dealer: int
    mano: int
    hands: tuple[tuple[Card, ...], ...]
    """Every seat's final four cards, revealed at the end of the hand."""
    lances: tuple[LanceResult, ...]
    """One entry per lance in order: grande, chica, pares, and juego or punto."""
    scores_before: tuple[int, int]
    scores_after: tuple[int, int]
    """Scores when the hand ended (before a new game resets them)."""
    game_over: bool
    """Whether the hand ended a game."""
    game_winner: int | None
    ended_by: str
    """How the hand ended: ``count``, ``count:<lance>`` (target reached while counting
    that lance), ``deje:<lance>`` (a deje reached the target), ``ordago:<lance>``."""
    declarations: dict[str, tuple[bool, ...]]
    """``pares`` and ``juego``: per seat, whether it had them."""
    games_won: tuple[int, int] = (0, 0)
    """Games won by each team in the current vaca once this hand is recorded: the
    engine's own count, so 0–0 again after a hand that won a vaca (every observer of
    the match reads it here rather than counting games itself)."""
    vacas_won: tuple[int, int] = (0, 0)
    """Vacas won by each team once this hand is recorded."""
