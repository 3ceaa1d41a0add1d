"""The vocabulary of a hand: lances, phases, señas, public events, the live bet and results."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from mus_core._deprecation import deprecated
from mus_core.actions import Action
from mus_core.cards import Card


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

    def __str__(self) -> str:
        """The lance's name, ``grande`` … ``punto`` (so that ``f"{obs.lance}"`` reads as the
        game does; an IntEnum would print its number). ``int(lance)`` is still the order."""
        return self.name.lower()


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


class MatchEndReason(enum.Enum):
    """Why a match ended."""

    COMPLETED = "completed"
    """A team won by the rules."""
    FORFEIT = "forfeit"
    """A team forfeited after too many faults."""
    ABORTED = "aborted"
    """The arena stopped the match; there may be no winner."""


@dataclass(frozen=True, slots=True)
class LiveBet:
    """The bet on the table in the current lance (as every seat sees it)."""

    team: int
    """The team that made it."""
    seat: int
    """The seat that made it."""
    stake: int
    """Total stake proposed for the lance, in stones. For an órdago (``is_ordago``) the
    whole game is at stake; this is then the stake of the envido the órdago raised, 0
    when the órdago opened the lance."""
    deje: int
    """Stones the betting team receives at once if it is declined (the deje)."""
    is_ordago: bool = False
    """Whether it is an órdago."""

    @property
    def prev(self) -> int:
        """Deprecated name of :attr:`deje` (the engine's former field name)."""
        deprecated("LiveBet.prev", "LiveBet.deje")
        return self.deje


class HandEndKind(enum.Enum):
    """What decided a hand (the part of :class:`HandEnd` before the colon)."""

    COUNT = "count"
    """The count at the end of the hand."""
    DEJE = "deje"
    """A deje (a declined bet) reached the target during the betting."""
    ORDAGO = "ordago"
    """An órdago was accepted."""


class HandEnd(enum.StrEnum):
    """How a hand ended (``HandResult.ended_by``): its kind and, when it ended a game,
    the lance that did it.

    A string enum: each member *is* its text (``"count"``, ``"count:pares"``,
    ``"deje:grande"``, ``"ordago:punto"``...), which is how hand logs, results and the
    wire (``mus.v1.HandResult.ended_by``) write it. Build one with :meth:`of`; read it
    with :attr:`kind` and :attr:`lance`.
    """

    COUNT = "count"
    """The count ran to the end; no game ended."""
    COUNT_GRANDE = "count:grande"
    COUNT_CHICA = "count:chica"
    COUNT_PARES = "count:pares"
    COUNT_JUEGO = "count:juego"
    COUNT_PUNTO = "count:punto"
    DEJE_GRANDE = "deje:grande"
    DEJE_CHICA = "deje:chica"
    DEJE_PARES = "deje:pares"
    DEJE_JUEGO = "deje:juego"
    DEJE_PUNTO = "deje:punto"
    ORDAGO_GRANDE = "ordago:grande"
    ORDAGO_CHICA = "ordago:chica"
    ORDAGO_PARES = "ordago:pares"
    ORDAGO_JUEGO = "ordago:juego"
    ORDAGO_PUNTO = "ordago:punto"

    @property
    def kind(self) -> HandEndKind:
        """Count, deje or órdago."""
        return _END_PARTS[self][0]

    @property
    def lance(self) -> Lance | None:
        """The lance during which a game was won; ``None`` for :attr:`COUNT`."""
        return _END_PARTS[self][1]

    @staticmethod
    def of(kind: HandEndKind, lance: Lance | None = None) -> HandEnd:
        """The member for ``kind`` and ``lance`` (``None`` only with COUNT).

        Raises:
            ValueError: a deje or órdago without a lance.
        """
        return HandEnd(kind.value if lance is None else f"{kind.value}:{lance.name.lower()}")


_END_PARTS: dict[HandEnd, tuple[HandEndKind, Lance | None]] = {
    end: (HandEndKind(end.value.partition(":")[0]), Lance[end.name.partition("_")[2]] if ":" in end.value else None)
    for end in HandEnd
}


@dataclass(frozen=True, slots=True)
class Declarations(Mapping[Lance, tuple[bool, ...]]):
    """The pares and juego declarations of a hand: per seat, whether it had them.

    A read-only mapping keyed by :class:`Lance` (``PARES``, ``JUEGO``), holding only the
    lances that were reached (a hand ended in grande has none). The string keys
    ``"pares"`` and ``"juego"`` are accepted too, as the former ``dict[str, ...]`` was.
    """

    pares: tuple[bool, ...] | None = None
    """Per seat, whether it had pares; ``None`` if the pares lance was not reached."""
    juego: tuple[bool, ...] | None = None
    """Per seat, whether it had juego (all false: punto was played); ``None`` if not reached."""

    def __getitem__(self, key: Lance | str) -> tuple[bool, ...]:
        value = self.pares if key == Lance.PARES or key == "pares" else (
            self.juego if key == Lance.JUEGO or key == "juego" else None
        )
        if value is None:
            raise KeyError(key)
        return value

    def __iter__(self) -> Iterator[Lance]:
        if self.pares is not None:
            yield Lance.PARES
        if self.juego is not None:
            yield Lance.JUEGO

    def __len__(self) -> int:
        return (self.pares is not None) + (self.juego is not None)

    def __contains__(self, key: object) -> bool:
        try:
            self[key]  # type: ignore[index]
        except KeyError:
            return False
        return True


class HandResult(NamedTuple):
    """Everything that decided one hand, for logs, bots and disputes (a bot's
    ``on_hand_end`` receives it)."""

    game: int
    """Game number in the match, from 0."""
    hand: int
    """Hand number in the match, from 0 (it does not restart with a new game)."""
    dealer: int
    """The dealer (postre) seat."""
    mano: int
    """The mano seat."""
    hands: tuple[tuple[Card, ...], ...]
    """Every seat's final four cards (index = seat), revealed at the end of the hand."""
    lances: tuple[LanceResult, ...]
    """One entry per lance in order: grande, chica, pares, and juego or punto."""
    scores_before: tuple[int, ...]
    """Team scores when the hand started."""
    scores_after: tuple[int, ...]
    """Scores when the hand ended (before a new game resets them)."""
    game_over: bool
    """Whether the hand ended a game."""
    game_winner: int | None
    """The team that won the game, if ``game_over``."""
    ended_by: HandEnd
    """How the hand ended: the count, or the deje or órdago (and its lance) that ended a game."""
    declarations: Declarations = Declarations()
    """Pares and juego: per seat, whether it had them (only the lances reached)."""
    games_won: tuple[int, ...] = (0, 0)
    """Games won by each team in the current vaca once this hand is recorded: the
    engine's own count, so 0–0 again after a hand that won a vaca (every observer of
    the match reads it here rather than counting games itself)."""
    vacas_won: tuple[int, ...] = (0, 0)
    """Vacas won by each team once this hand is recorded. Not on the wire: a bot's
    ``on_hand_end`` sees (0, 0) here (its next ``Observation.vacas_won`` has the count)."""
