"""The typed values a bot sees and returns: cards, actions, observations, results.

Bot authors never touch protobuf: :mod:`mus_sdk.convert` turns wire messages into these
frozen values and back. Names and numeric values mirror the arena's rules engine
(``arena/engine``), so a card is the same ``int`` 0..39 on both sides and an enum member
has the same name and value; this is what lets the arena run a :class:`~mus_sdk.Bot`
in-process without gRPC. The SDK imports nothing from the arena.

Seats are numbered in turn order; teams alternate (``team = seat % 2``); points are
stones (piedras).
"""

from __future__ import annotations

import enum
import itertools
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

# --------------------------------------------------------------------------- cards

RANK_CHARS = "A234567SCR"
"""Rank characters in natural order; the index is :class:`Rank`'s value."""

SUIT_CHARS = "oceb"
"""Suit characters: oros, copas, espadas, bastos; the index is :class:`Suit`'s value."""


class Rank(enum.IntEnum):
    """Natural card ranks, lowest to highest. With 8 kings a TRES plays as a REY and a
    DOS as an AS (see :mod:`mus_sdk.evaluate`)."""

    AS = 0
    DOS = 1
    TRES = 2
    CUATRO = 3
    CINCO = 4
    SEIS = 5
    SIETE = 6
    SOTA = 7
    CABALLO = 8
    REY = 9


class Suit(enum.IntEnum):
    """The four suits. Suits never matter to the rules."""

    OROS = 0
    COPAS = 1
    ESPADAS = 2
    BASTOS = 3


_RANKS = tuple(Rank)
_SUITS = tuple(Suit)
_RANK_ALIASES = {
    "1": Rank.AS,
    "10": Rank.SOTA,
    "11": Rank.CABALLO,
    "12": Rank.REY,
    "K": Rank.REY,
    "k": Rank.REY,
}


class Card(int):
    """One card: an ``int`` 0..39 equal to ``rank * 4 + suit``, as in the arena's engine.

    Text notation is a rank character and a suit character: ``Ro`` (rey de oros),
    ``7c`` (siete de copas), ``Ae`` (as de espadas), ``Sb`` (sota de bastos).
    ``Card.parse(str(card)) == card``. The 40 instances are interned in :data:`CARDS`;
    prefer ``CARDS[n]`` or :meth:`parse` to the constructor. Being an ``int`` keeps a
    card cheap to hash, compare and sort, and identical to the engine's numbering.
    """

    __slots__ = ()

    @property
    def rank(self) -> Rank:
        """The natural rank."""
        return _RANKS[self >> 2]

    @property
    def suit(self) -> Suit:
        """The suit."""
        return _SUITS[self & 3]

    def __str__(self) -> str:
        return RANK_CHARS[self >> 2] + SUIT_CHARS[self & 3]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @staticmethod
    def of(rank: int, suit: int) -> Card:
        """The card of a rank (0..9) and a suit (0..3).

        Raises:
            ValueError: rank or suit out of range.
        """
        if not (0 <= rank < 10 and 0 <= suit < 4):
            raise ValueError(f"no card with rank {rank!r} and suit {suit!r}")
        return CARDS[rank * 4 + suit]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``Ro``, ``7c``, ``12e`` (rank 1/10/11/12 aliases are accepted).

        Raises:
            ValueError: the text is not a card.
        """
        text = text.strip()
        if len(text) < 2:
            raise ValueError(f"not a card: {text!r} (expected rank + suit, e.g. 'Ro', '7c')")
        rank_text = text[:-1]
        if rank_text in _RANK_ALIASES:
            rank = int(_RANK_ALIASES[rank_text])
        elif len(rank_text) == 1 and RANK_CHARS.find(rank_text.upper()) >= 0:
            rank = RANK_CHARS.find(rank_text.upper())
        else:
            raise ValueError(f"not a card: {text!r} (rank must be one of {' '.join(RANK_CHARS)})")
        suit = SUIT_CHARS.find(text[-1].lower())
        if suit < 0:
            raise ValueError(f"not a card: {text!r} (suit must be one of o c e b)")
        return CARDS[rank * 4 + suit]


CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(40))
"""The 40 cards, indexed by number."""


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse a space- or comma-separated list of cards, e.g. ``"Ro 7c Ae Sb"``.

    Raises:
        ValueError: an item is not a card.
    """
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return tuple(Card.parse(t) for t in items)


def format_cards(cards: Iterable[int]) -> str:
    """Format cards in text notation, separated by spaces."""
    return " ".join(str(CARDS[c]) for c in cards)


# --------------------------------------------------------------------------- enums


class Lance(enum.IntEnum):
    """The lances, in the order they are played and counted."""

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
    """What the hand is waiting for."""

    MUS = 0
    """Say mus or no hay mus."""
    DISCARD = 1
    """Choose the discards."""
    BETTING = 2
    """Act in the betting of :attr:`Observation.lance`."""
    MATCH_OVER = 3
    """Nothing more: the match is decided."""


class Sena(enum.IntEnum):
    """Señas (signals) between partners; the referee rejects an untruthful one."""

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
    """Three of a kind."""
    DUPLES = 8
    """Two pairs or four of a kind."""
    JUEGO = 9
    """Juego other than 31."""
    TREINTA_Y_UNA = 10
    """Juego of 31."""
    TREINTA = 11
    """A total of 30."""
    VEINTINUEVE = 12
    """A total of 29."""
    CIEGO = 13
    """Nothing worth signalling."""
    SOLOMILLO = 14
    """Three kings and an ace (R R R A)."""
    CORTAR_MUS = 15
    """"Let's cut the mus" (an intention)."""
    ENVIDAR_MAS = 16
    """"Bet more" (an intention)."""


class LanceOutcome(enum.Enum):
    """How a lance was decided."""

    EN_PASO = "en_paso"
    """Everybody passed; the best hand scores at the count."""
    ACCEPTED = "accepted"
    """A bet was accepted; the best hand scores the stake at the count."""
    DECLINED = "declined"
    """A bet was declined; the betting team got the deje at once."""
    ONE_TEAM = "one_team"
    """Only one team had pares/juego: no betting, that team scores its values."""
    SKIPPED = "skipped"
    """Nobody had pares (or juego was replaced by punto)."""
    ORDAGO = "ordago"
    """An órdago was accepted: the best hand in the lance won the game."""
    NOT_PLAYED = "not_played"
    """The game ended before this lance was played."""


class EventKind(enum.Enum):
    """Kinds of public events in a hand's history (see :class:`Event`)."""

    MUS_CALL = "mus_call"
    """``seat`` said mus (``action`` MUS) or cut it (``action`` NO_MUS)."""
    DISCARD = "discard"
    """``seat`` discarded ``value`` cards."""
    REPLACEMENTS = "replacements"
    """Replacements were dealt; ``value`` is the discard round, from 1."""
    RESHUFFLE = "reshuffle"
    """The stock ran out; ``value`` cards were shuffled into a new stock."""
    DECLARATION = "declaration"
    """``seat`` has (``value`` 1) or has not (0) pares/juego for ``lance``."""
    LANCE_START = "lance_start"
    """Betting in ``lance`` begins."""
    BET = "bet"
    """``seat`` took betting ``action`` in ``lance``."""
    DEJE = "deje"
    """``team`` was credited ``value`` stones at once for a declined bet."""
    LANCE_END = "lance_end"
    """``lance`` was decided with ``outcome``."""
    SIGNAL = "signal"
    """``seat`` gave ``sena``."""


class ActionKind(enum.IntEnum):
    """What an action does."""

    MUS = 0
    """Ask for a discard round."""
    NO_MUS = 1
    """Cut the mus ("no hay mus")."""
    DISCARD = 2
    """Throw away 1 to 4 cards."""
    PASO = 3
    """Pass before any bet."""
    ENVIDO = 4
    """Bet or raise by ``amount`` stones."""
    QUIERO = 5
    """Accept the live bet."""
    NO_QUIERO = 6
    """Decline the live bet; out of this lance."""
    ORDAGO = 7
    """Bet the whole game."""
    QUEREMOS = 8
    """Accept for the whole team (variant)."""
    NO_QUEREMOS = 9
    """Decline for the whole team (variant)."""


class JuegoReal(enum.Enum):
    """Which hands count as "31 real" (three 7s and a ten-point card)."""

    OFF = "off"
    ANY_TEN_CARD = "any_ten_card"
    FIGURE_NO_THREE = "figure_no_three"
    SOTA_ONLY = "sota_only"


class SignalMode(enum.Enum):
    """Who sees a seña."""

    PUBLIC = "public"
    OFF = "off"
    PARTNER_WITH_INTERCEPTION = "partner_with_interception"


class MusCorrido(enum.Enum):
    """The mus corrido variant."""

    OFF = "off"
    FIRST_HAND_OF_MATCH = "first_hand_of_match"
    FIRST_HAND_OF_EACH_GAME = "first_hand_of_each_game"


class MatchEndReason(enum.Enum):
    """Why a match ended."""

    COMPLETED = "completed"
    """A team won by the rules."""
    FORFEIT = "forfeit"
    """A team forfeited after too many faults."""
    ABORTED = "aborted"
    """The arena stopped the match; there may be no winner."""


# --------------------------------------------------------------------------- actions

_ACTION_NAMES = {
    ActionKind.MUS: "mus",
    ActionKind.NO_MUS: "no-mus",
    ActionKind.DISCARD: "discard",
    ActionKind.PASO: "paso",
    ActionKind.ENVIDO: "envido",
    ActionKind.QUIERO: "quiero",
    ActionKind.NO_QUIERO: "no-quiero",
    ActionKind.ORDAGO: "ordago",
    ActionKind.QUEREMOS: "queremos",
    ActionKind.NO_QUEREMOS: "no-queremos",
}


@dataclass(frozen=True, slots=True)
class Action:
    """One action: a kind plus, for ENVIDO, the stones added, and for DISCARD, the cards.

    Build actions with the helpers :func:`mus`, :func:`no_mus`, :func:`discard`,
    :func:`paso`, :func:`envido`, :func:`quiero`, :func:`no_quiero`, :func:`ordago`,
    :func:`queremos` and :func:`no_queremos`.
    """

    kind: ActionKind
    amount: int = 0
    """Stones added, for ENVIDO only (>= 2): the opening stake, or a raise's increment."""
    cards: tuple[Card, ...] = ()
    """Cards thrown away, for DISCARD only (sorted, 1 to 4)."""

    def __str__(self) -> str:
        if self.kind is ActionKind.ENVIDO:
            return f"envido {self.amount}"
        if self.kind is ActionKind.DISCARD:
            return f"discard {format_cards(self.cards)}"
        return _ACTION_NAMES[self.kind]


MUS = Action(ActionKind.MUS)
NO_MUS = Action(ActionKind.NO_MUS)
PASO = Action(ActionKind.PASO)
QUIERO = Action(ActionKind.QUIERO)
NO_QUIERO = Action(ActionKind.NO_QUIERO)
ORDAGO = Action(ActionKind.ORDAGO)
QUEREMOS = Action(ActionKind.QUEREMOS)
NO_QUEREMOS = Action(ActionKind.NO_QUEREMOS)

FIXED_ACTIONS: dict[ActionKind, Action] = {
    a.kind: a for a in (MUS, NO_MUS, PASO, QUIERO, NO_QUIERO, ORDAGO, QUEREMOS, NO_QUEREMOS)
}
"""The interned action of every kind that takes no parameter."""
_BETS = frozenset((ActionKind.ENVIDO, ActionKind.ORDAGO))
"""The action kinds that make a bet live (an opening bet or a raise)."""

_ENVIDO_CACHE = tuple(Action(ActionKind.ENVIDO, n) for n in range(64))


def mus() -> Action:
    """Say "mus": ask for a discard round."""
    return MUS


def no_mus() -> Action:
    """Say "no hay mus": cut the mus and start the lances."""
    return NO_MUS


def discard(cards: Iterable[int]) -> Action:
    """Discard these cards (1 to 4 of your hand; order does not matter)."""
    return Action(ActionKind.DISCARD, 0, tuple(CARDS[c] for c in sorted(cards)))


def paso() -> Action:
    """Pass ("paso") before any bet; you stay in the lance."""
    return PASO


def envido(amount: int = 2) -> Action:
    """Bet ``amount`` stones (opening bet) or raise by ``amount`` (>= 2)."""
    if 0 <= amount < 64:
        return _ENVIDO_CACHE[amount]
    return Action(ActionKind.ENVIDO, amount)


def quiero() -> Action:
    """Accept the live bet."""
    return QUIERO


def no_quiero() -> Action:
    """Decline the live bet; you are out of this lance."""
    return NO_QUIERO


def ordago() -> Action:
    """Bet the whole game."""
    return ORDAGO


def queremos() -> Action:
    """Accept for the whole team (only with ``rules.plural_answers_bind_partner``)."""
    return QUEREMOS


def no_queremos() -> Action:
    """Decline for the whole team (only with ``rules.plural_answers_bind_partner``)."""
    return NO_QUEREMOS


@dataclass(frozen=True, slots=True)
class EnvidoRange:
    """Legal-action shape: an envido of any amount in ``[min_amount, max_amount]``."""

    min_amount: int = 2
    """Smallest legal amount, inclusive (>= 2)."""
    max_amount: int | None = None
    """Largest legal amount, inclusive; ``None`` means unbounded."""

    def __contains__(self, action: object) -> bool:
        return (
            isinstance(action, Action)
            and action.kind is ActionKind.ENVIDO
            and action.amount >= self.min_amount
            and (self.max_amount is None or action.amount <= self.max_amount)
        )

    def clamp(self, amount: int) -> int:
        """``amount`` moved into the range."""
        amount = max(amount, self.min_amount)
        return amount if self.max_amount is None else min(amount, self.max_amount)

    def __str__(self) -> str:
        top = "∞" if self.max_amount is None else str(self.max_amount)
        return f"envido {self.min_amount}..{top}"


@dataclass(frozen=True, slots=True)
class DiscardRange:
    """Legal-action shape: discard any ``min_count..max_count`` distinct cards of ``cards``."""

    cards: tuple[Card, ...]
    """The cards that may be discarded (the whole hand)."""
    min_count: int = 1
    """Fewest cards, inclusive."""
    max_count: int = 4
    """Most cards, inclusive."""

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Action) or action.kind is not ActionKind.DISCARD:
            return False
        chosen = action.cards
        return (
            self.min_count <= len(chosen) <= self.max_count
            and len(set(chosen)) == len(chosen)
            and all(c in self.cards for c in chosen)
        )

    def options(self) -> list[Action]:
        """Every legal discard, fewest cards first (15 for a 4-card hand)."""
        return [
            discard(combo)
            for n in range(self.min_count, min(self.max_count, len(self.cards)) + 1)
            for combo in itertools.combinations(self.cards, n)
        ]

    def __str__(self) -> str:
        return f"discard {self.min_count}-{self.max_count} of {format_cards(self.cards)}"


LegalAction = Action | EnvidoRange | DiscardRange
"""One entry of the legal actions: a fixed action, or a shape for a family of actions."""


class LegalActions(Sequence[LegalAction]):
    """The legal actions of a decision, with convenient queries.

    It is a sequence of entries (:class:`Action`, :class:`EnvidoRange`,
    :class:`DiscardRange`) in the arena's order, and also answers:

    >>> legal.can(ActionKind.ENVIDO)           # doctest: +SKIP
    >>> envido(5) in legal                     # doctest: +SKIP
    >>> legal.envido_range.min_amount          # doctest: +SKIP
    """

    __slots__ = ("_discard", "_entries", "_envido", "_kinds")

    _entries: tuple[LegalAction, ...]
    _envido: EnvidoRange | None
    _discard: DiscardRange | None
    _kinds: frozenset[ActionKind]

    def __init__(self, entries: Iterable[LegalAction]) -> None:
        items = tuple(entries)
        kinds = set()
        envido_range: EnvidoRange | None = None
        discard_range: DiscardRange | None = None
        for e in items:
            if isinstance(e, Action):
                kinds.add(e.kind)
            elif isinstance(e, EnvidoRange):
                kinds.add(ActionKind.ENVIDO)
                envido_range = e
            else:
                kinds.add(ActionKind.DISCARD)
                discard_range = e
        # Immutable (the SDK shares one object between requests with the same legal set).
        init = object.__setattr__
        init(self, "_entries", items)
        init(self, "_envido", envido_range)
        init(self, "_discard", discard_range)
        init(self, "_kinds", frozenset(kinds))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"LegalActions is immutable (cannot set {name})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"LegalActions is immutable (cannot delete {name})")

    def __reduce__(self) -> tuple[type[LegalActions], tuple[tuple[LegalAction, ...]]]:
        return (LegalActions, (self._entries,))

    @overload
    def __getitem__(self, index: int) -> LegalAction: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[LegalAction]: ...
    def __getitem__(self, index: int | slice) -> LegalAction | Sequence[LegalAction]:
        return self._entries[index]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[LegalAction]:
        return iter(self._entries)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalActions):
            return self._entries == other._entries
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._entries)

    def __repr__(self) -> str:
        return f"LegalActions({list(self._entries)!r})"

    def __str__(self) -> str:
        return ", ".join(str(e) for e in self._entries)

    def __contains__(self, action: object) -> bool:
        """Whether ``action`` is legal: equal to a fixed entry or inside a shape."""
        if not isinstance(action, Action):
            return action in self._entries
        if action.kind is ActionKind.ENVIDO:
            return self._envido is not None and action in self._envido
        if action.kind is ActionKind.DISCARD:
            return self._discard is not None and action in self._discard
        return action.kind in self._kinds

    @property
    def entries(self) -> tuple[LegalAction, ...]:
        """The entries, in the arena's order."""
        return self._entries

    @property
    def kinds(self) -> frozenset[ActionKind]:
        """The kinds of action that are legal."""
        return self._kinds

    def can(self, kind: ActionKind) -> bool:
        """Whether some action of ``kind`` is legal."""
        return kind in self._kinds

    @property
    def envido_range(self) -> EnvidoRange | None:
        """The legal envido amounts, or ``None`` if envido is not legal."""
        return self._envido

    @property
    def discard_range(self) -> DiscardRange | None:
        """The legal discards, or ``None`` if discarding is not legal."""
        return self._discard

    @property
    def fixed(self) -> tuple[Action, ...]:
        """The legal actions that take no parameter."""
        return tuple(e for e in self._entries if isinstance(e, Action))

    def envido(self, amount: int) -> Action | None:
        """An envido of ``amount`` moved into the legal range, or ``None`` if envido is illegal."""
        return None if self._envido is None else envido(self._envido.clamp(amount))

    def concrete(self, max_envido: int = 10) -> list[Action]:
        """Every legal action, with envido amounts capped at ``max_envido`` (or the range's minimum)."""
        out: list[Action] = []
        for e in self._entries:
            if isinstance(e, Action):
                out.append(e)
            elif isinstance(e, EnvidoRange):
                top = max(e.min_amount, e.clamp(max_envido))
                out.extend(envido(n) for n in range(e.min_amount, top + 1))
            else:
                out.extend(e.options())
        return out

    def sample(self, rng: random.Random, max_envido: int = 10) -> Action:
        """A uniformly random entry, then a uniform amount/discard within it.

        Raises:
            IndexError: there is no legal action.
        """
        entry = self._entries[rng.randrange(len(self._entries))]
        if isinstance(entry, Action):
            return entry
        if isinstance(entry, EnvidoRange):
            top = max(entry.min_amount, entry.clamp(max_envido))
            return envido(rng.randint(entry.min_amount, top))
        options = entry.options()
        return options[rng.randrange(len(options))]


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True, slots=True)
class Rules:
    """A rules variant (docs/rules.md §12); field names match the arena's ``Rules``."""

    players: int = 4
    """Seats at the table: 4, 2 or 6."""
    kings: int = 8
    """8 (every 3 is a king, every 2 an ace) or 4."""
    target_points: int = 40
    """Stones that win a game."""
    games_to_win: int = 2
    """Games that win a vaca."""
    vacas_to_win: int = 1
    """Vacas that win the match."""
    juego_real: JuegoReal = JuegoReal.OFF
    """Which hands count as 31 real."""
    signals: SignalMode = SignalMode.PUBLIC
    """Who sees a seña."""
    interception_p: float = 0.0
    """Probability an opponent sees a seña, with PARTNER_WITH_INTERCEPTION."""
    signal_timing_rules: bool = True
    """FEM timing rules for medias and ciego."""
    mus_corrido: MusCorrido = MusCorrido.OFF
    """The mus corrido variant."""
    plural_answers_bind_partner: bool = False
    """Whether queremos / no queremos exist."""
    max_stake: int | None = None
    """Cap on a lance's stake; ``None`` means none."""
    max_mus_rounds: int | None = None
    """Discard rounds after which no hay mus is automatic; ``None`` means unlimited."""


# --------------------------------------------------------------------------- history


@dataclass(frozen=True, slots=True)
class Event:
    """One public event of a hand; which fields are set depends on ``kind`` (see :class:`EventKind`).

    The shape is the arena engine's ``Event``.
    """

    kind: EventKind
    seat: int | None = None
    lance: Lance | None = None
    action: Action | None = None
    value: int = 0
    team: int | None = None
    sena: Sena | None = None
    outcome: LanceOutcome | None = None


class LazyHistory(Sequence[Event]):
    """A sequence of events converted from the wire on first use.

    Most decisions never look at the history, so converting it eagerly would be wasted
    work on the hot path. Behaves as a read-only tuple of :class:`Event`.
    """

    __slots__ = ("_convert", "_events", "_source")

    def __init__(self, source: Sequence[Any], convert: Callable[[Any], Event]) -> None:
        self._source = source
        self._convert = convert
        self._events: tuple[Event, ...] | None = None

    def _all(self) -> tuple[Event, ...]:
        if self._events is None:
            self._events = tuple(self._convert(e) for e in self._source)
        return self._events

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Event]: ...
    def __getitem__(self, index: int | slice) -> Event | Sequence[Event]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._source)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return self._all() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return f"LazyHistory({list(self._all())!r})"


@dataclass(frozen=True, slots=True)
class LiveBet:
    """The live bet of the current lance."""

    team: int
    """The team that made it."""
    seat: int
    """The seat that made it."""
    stake: int
    """Total stake proposed for the lance, in stones. For an órdago (``is_ordago``) the
    whole game is at stake; this is then the stake of the envido the órdago raised, 0
    when it opened the lance."""
    deje: int
    """Stones the betting team receives at once if it is declined."""
    is_ordago: bool = False
    """Whether it is an órdago."""


# --------------------------------------------------------------------------- observations


def partners_of(seat: int, num_seats: int) -> tuple[int, ...]:
    """The partners of ``seat`` at a table of ``num_seats`` (teams alternate)."""
    return tuple(s for s in range(seat % 2, num_seats, 2) if s != seat)


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything a seat knows when it must act; built from one decision request.

    It is self-contained: a bot that keeps no state can decide from it alone.
    """

    request_id: int
    """Id of the request; the SDK puts it in the answer for you."""
    match_id: str
    """Id of the match."""
    seat: int
    """Your seat."""
    phase: Phase
    """What the hand is waiting for (MUS, DISCARD or BETTING)."""
    lance: Lance | None
    """The lance being bet when ``phase`` is BETTING, else ``None``."""
    cards: tuple[Card, ...]
    """Your cards."""
    legal: LegalActions
    """What you may do now; never empty."""
    mano: int
    """The mano seat (speaks first, wins ties)."""
    dealer: int
    """The dealer (postre) seat."""
    scores: tuple[int, ...]
    """Team scores in the current game (index = team), dejes of this hand included."""
    history: Sequence[Event]
    """The public history of this hand, oldest first, with the señas you saw."""
    rules: Rules
    """The rules variant."""
    game: int = 0
    """Game number in the match, from 0."""
    hand: int = 0
    """Hand number in the match, from 0, counted across games: it does not restart when
    a new game begins (the hands of the current game are not numbered)."""
    games_won: tuple[int, ...] = (0, 0)
    """Games won by each team in the current vaca."""
    vacas_won: tuple[int, ...] = (0, 0)
    """Vacas won by each team; always (0, 0) while ``rules.vacas_to_win`` is 1."""
    target_points: int = 40
    """Stones that win a game."""
    discard_round: int = 0
    """Discard rounds completed in this hand."""
    bet: LiveBet | None = None
    """The live bet, or ``None``."""
    legal_senas: tuple[Sena, ...] = ()
    """Señas you may send with your action now."""
    deadline_ms: int = 0
    """Time allowed for this decision, in milliseconds."""
    time_bank_ms: int = 0
    """Time left in your match time bank, in milliseconds (0 = no bank)."""

    @property
    def num_seats(self) -> int:
        """Seats at the table."""
        return self.rules.players

    @property
    def team(self) -> int:
        """Your team (0 or 1)."""
        return self.seat % 2

    @property
    def partners(self) -> tuple[int, ...]:
        """Your partners' seats."""
        return partners_of(self.seat, self.rules.players)

    @property
    def partner(self) -> int | None:
        """Your partner's seat (the first one with 6 players), or ``None`` at 2 players."""
        p = self.partners
        return p[0] if p else None

    @property
    def my_score(self) -> int:
        """Your team's score."""
        return self.scores[self.seat % 2]

    @property
    def their_score(self) -> int:
        """The other team's score."""
        return self.scores[1 - self.seat % 2]

    @property
    def position(self) -> int:
        """Seats between mano and you in turn order: 0 if you are mano, players-1 if postre."""
        return (self.seat - self.mano) % self.rules.players

    @property
    def is_mano(self) -> bool:
        """Whether you are mano."""
        return self.seat == self.mano

    @property
    def is_postre(self) -> bool:
        """Whether you are the dealer (postre), who speaks last."""
        return self.seat == self.dealer

    @property
    def bet_answers(self) -> tuple[Event, ...]:
        """The answers already given to the live bet, oldest first: the ``BET`` events
        of ``history`` after the envido or órdago that made it (quiero, no quiero, by the
        seats asked before you). Empty when there is no live bet or you answer first.

        Derived from ``history``, which the arena sends whole with every request (so
        reading this converts the history).
        """
        if self.bet is None:
            return ()
        history = tuple(self.history)
        # The live bet is the last envido or órdago of the hand: an earlier lance's bets
        # are all followed by its LANCE_END, and a raise is itself an envido or órdago.
        for i in range(len(history) - 1, -1, -1):
            e = history[i]
            if e.kind is EventKind.BET and e.action is not None and e.action.kind in _BETS:
                return tuple(a for a in history[i + 1 :] if a.kind is EventKind.BET)
        return ()

    @property
    def partner_said_quiero(self) -> bool:
        """Whether a partner already said quiero to the live bet.

        The bet is then accepted for your team whatever you answer: quiero or no quiero
        changes nothing but whether you stay in the lance, and a raise (envido or órdago,
        when legal) is still yours to make (docs/rules.md §6.3). With
        ``rules.plural_answers_bind_partner``, a partner's "queremos" answers for you and
        you are not asked at all.
        """
        partners = self.partners
        return any(
            e.seat in partners and e.action is not None and e.action.kind is ActionKind.QUIERO
            for e in self.bet_answers
        )


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """The start of a match, as seen from your seat."""

    match_id: str
    """Id of the match."""
    seat: int
    """Your seat."""
    partners: tuple[int, ...]
    """Your partners' seats."""
    num_seats: int
    """Seats at the table."""
    rules: Rules
    """The rules variant."""
    scores: tuple[int, ...] = (0, 0)
    """Team scores at the start."""
    games_won: tuple[int, ...] = (0, 0)
    """Games won by each team at the start."""
    time_bank_ms: int = 0
    """Your time bank for the match, in milliseconds (0 = none)."""
    decision_deadline_ms: int = 0
    """Default deadline of one decision, in milliseconds."""
    protocol_version: int = 1
    """App protocol version in use."""
    seat_names: tuple[str, ...] = ()
    """Names of the bots in each seat, if the arena shares them."""

    @property
    def team(self) -> int:
        """Your team."""
        return self.seat % 2

    @property
    def partner(self) -> int | None:
        """Your partner's seat (the first one), or ``None``."""
        return self.partners[0] if self.partners else None


@dataclass(frozen=True, slots=True)
class LanceResult:
    """The itemised result of one lance (fields as the arena engine's ``LanceResult``)."""

    lance: Lance
    outcome: LanceOutcome
    stake: int = 0
    """Accepted stake (ACCEPTED) or declined stake (DECLINED)."""
    bet_team: int | None = None
    """Team that made the last bet."""
    deje: int = 0
    """Stones credited at once to ``bet_team`` for a declined bet."""
    winner_seat: int | None = None
    """Seat whose hand wins the lance."""
    winner_team: int | None = None
    """Team credited at the count."""
    points: int = 0
    """Stones credited at the count."""
    stake_points: int = 0
    """Part of ``points`` from the stake or the en paso stone."""
    value_points: int = 0
    """Part of ``points`` from pares/juego values or the punto stone."""
    counted: bool = True
    """False when the game ended before this lance was counted."""


@dataclass(frozen=True, slots=True)
class HandSummary:
    """The end of a hand: every seat's cards and the itemised count."""

    game: int
    """Game number, from 0."""
    hand: int
    """Hand number in the match, from 0 (it does not restart with a new game)."""
    dealer: int
    """The dealer seat."""
    mano: int
    """The mano seat."""
    hands: tuple[tuple[Card, ...], ...]
    """Every seat's final cards (index = seat)."""
    lances: tuple[LanceResult, ...]
    """Grande, chica, pares, juego or punto, in order."""
    scores_before: tuple[int, ...]
    """Team scores when the hand started."""
    scores_after: tuple[int, ...]
    """Team scores when the hand ended."""
    game_over: bool
    """Whether the hand ended a game."""
    game_winner: int | None
    """The team that won the game, if ``game_over``."""
    ended_by: str
    """``count``, ``count:<lance>``, ``deje:<lance>`` or ``ordago:<lance>``."""
    declarations: dict[str, tuple[bool, ...]] = field(default_factory=dict)
    """``pares`` and ``juego``: per seat, whether it had them (empty if not declared)."""
    games_won: tuple[int, ...] = (0, 0)
    """Games won by each team after this hand."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The end of a match."""

    games_won: tuple[int, ...]
    """Games won by each team."""
    winner_team: int | None
    """The winning team, or ``None`` if aborted without winner."""
    reason: MatchEndReason
    """Why it ended."""
    detail: str = ""
    """Human-readable details."""
    vacas_won: tuple[int, ...] = (0, 0)
    """Vacas won by each team."""


@dataclass(frozen=True, slots=True)
class BotInfo:
    """What a bot says about itself in ``GetInfo``."""

    name: str
    """Display name."""
    version: str = "0.0.0"
    """The bot's version, free form."""
    author: str = ""
    """Who wrote it."""
