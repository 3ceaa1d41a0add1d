"""What one seat may know (:class:`Observation`) and may do (:class:`LegalActions`): one
class each for the engine, which makes them (``MusState.view``), and the bots, which
receive them (the SDK builds them from each decision request). Standard library only.
"""

from __future__ import annotations

import functools
import random
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

from mus_core._deprecation import deprecated
from mus_core.actions import Action, ActionKind, DiscardRange, EnvidoRange, LegalAction, envido
from mus_core.cards import Card
from mus_core.events import Event, EventKind, Lance, LiveBet, Phase, Sena
from mus_core.rules import Rules

if TYPE_CHECKING:
    from mus_core.state import MusState

__all__ = ["LegalActions", "Observation", "partners_of"]

_BETS = frozenset((ActionKind.ENVIDO, ActionKind.ORDAGO))
"""The action kinds that make a bet live (an opening bet or a raise)."""


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
        # Equal to its entries as a tuple too (the hash is theirs): an engine view's
        # legal actions compare with MusState.legal_actions() as before they were wrapped.
        if isinstance(other, LegalActions):
            return self._entries == other._entries
        if isinstance(other, tuple):
            return self._entries == other
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


def partners_of(seat: int, num_seats: int) -> tuple[int, ...]:
    """The partners of ``seat`` at a table of ``num_seats`` (teams alternate)."""
    return tuple(s for s in range(seat % 2, num_seats, 2) if s != seat)


@dataclass(frozen=True, slots=True)
class Observation:
    """Exactly what one seat may know: its cards and the public state of the match.

    One class for the engine and the bots. The engine's :meth:`MusState.view(seat)
    <mus_core.state.MusState.view>` makes one for any seat at any moment (outside a
    request: ``request_id`` 0, ``match_id`` empty, no deadline); a bot's ``decide``
    receives one built from each ``mus.v1.DecisionRequest``, with the request's id, the
    match id and the deadline. It is self-contained: a bot that keeps no state can decide
    from it alone.
    """

    request_id: int
    """Id of the request; the SDK puts it in the answer for you."""
    match_id: str
    """Id of the match."""
    seat: int
    """Your seat."""
    phase: Phase
    """What the hand is waiting for (MUS, DISCARD or BETTING; MATCH_OVER in a view of a
    finished match)."""
    lance: Lance | None
    """The lance being bet when ``phase`` is BETTING, else ``None``."""
    cards: tuple[Card, ...]
    """Your cards."""
    legal_actions: LegalActions
    """What you may do now: never empty in a decision request, empty in a view of a seat
    that is not to act (``legal``, its former name, still reads it, with a
    ``DeprecationWarning``)."""
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
    own_discards: tuple[Card, ...] = ()
    """The cards you threw in this hand, in the order thrown, over every discard round
    (the other seats' discards are never known)."""
    to_act: int | None = None
    """The seat to act: yours in a decision request; in an engine view, the seat whose
    turn it is (``None`` once the match is over, or while a reshuffle is due). Built by
    hand without it, it is your seat if you have legal actions."""

    def __post_init__(self) -> None:
        # Only for observations built by hand (the engine and the wire set every field
        # without __init__): one with legal actions is a request to this seat.
        if self.to_act is None and len(self.legal_actions):
            object.__setattr__(self, "to_act", self.seat)

    # Former names (the proto and this class say ``bet``, ``discard_round``, ``num_seats``).
    @property
    def live_bet(self) -> LiveBet | None:
        """Deprecated alias of :attr:`bet`."""
        deprecated("Observation.live_bet", "Observation.bet")
        return self.bet

    @property
    def mus_round(self) -> int:
        """Deprecated alias of :attr:`discard_round`."""
        deprecated("Observation.mus_round", "Observation.discard_round")
        return self.discard_round

    @property
    def players(self) -> int:
        """Deprecated alias of :attr:`num_seats`."""
        deprecated("Observation.players", "Observation.num_seats")
        return self.num_seats

    @property
    def legal(self) -> LegalActions:
        """Deprecated alias of :attr:`legal_actions` (the engine and the proto's name)."""
        deprecated("Observation.legal", "Observation.legal_actions")
        return self.legal_actions

    def to_state(self, rng: random.Random, known_discards: Iterable[Card] | None = None) -> MusState:
        """A full engine state consistent with everything this seat has seen, the hidden
        cards drawn uniformly among the consistent ones (a determinisation, for search).

        ``rng`` draws the hidden cards; ``known_discards``: the cards this seat threw in
        this hand (default: :attr:`own_discards`, what the arena sent). Clone the
        state, apply actions, and :func:`mus_sdk.forward.play_out_hand` to the end of
        the hand. See :mod:`mus_core.forward` for how it is built and what it does not
        condition on.

        Raises:
            mus_core.forward.SamplingError: the observation admits no consistent deal.
        """
        from mus_core.forward import sample_state  # the forward model imports the engine, which imports this

        return sample_state(self, rng, known_discards)

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


_dataclass_init = Observation.__init__


@functools.wraps(_dataclass_init)
def _observation_init(self: Observation, *args: Any, legal: LegalActions | None = None, **kwargs: Any) -> None:
    # Observations built with the former keyword (``Observation(..., legal=...)``, or
    # ``dataclasses.replace(obs, legal=...)``) keep working. Not on the hot path: the
    # observations a bot receives from the wire are built without ``__init__``.
    if legal is not None:
        warnings.warn("Observation(legal=...) is deprecated: use legal_actions=...", DeprecationWarning, stacklevel=2)
        kwargs["legal_actions"] = legal
    _dataclass_init(self, *args, **kwargs)


Observation.__init__ = _observation_init  # type: ignore[method-assign]
