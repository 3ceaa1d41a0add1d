"""The SDK's conversions of the game's values (cards, actions, legal actions, events,
rules, enums) between ``mus.v1`` messages and :mod:`mus_core`'s types. Public through
:mod:`mus_sdk.convert`, which also converts whole observations and messages; see its
docstring for the rules every conversion follows."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any, TypeVar, cast

from mus.v1 import game_pb2 as pb

from mus_sdk.protomap import ACTION_FIELD, FIELD_ACTION, FROM_PROTO, TO_PROTO
from mus_sdk.types import (
    CARDS,
    FIXED_ACTIONS,
    MUS,
    NO_MUS,
    Action,
    ActionKind,
    Card,
    DiscardRange,
    EnvidoRange,
    Event,
    EventKind,
    JuegoReal,
    Lance,
    LanceOutcome,
    LegalAction,
    LegalActions,
    MusCorrido,
    Rules,
    Sena,
    SignalMode,
    discard,
    envido,
)


class ConversionError(ValueError):
    """Raised when a wire message cannot be converted (unspecified enum, empty oneof, bad card)."""


E = TypeVar("E", bound=enum.Enum)

MAX_AMOUNT = 1_000_000
"""Largest envido amount read from the wire: a sanity bound against garbage, far above any stake."""


def enum_to_proto(member: enum.Enum) -> int:
    """The proto enum number of a core enum member (see :mod:`mus_sdk.protomap`)."""
    return int(TO_PROTO[member])


def enum_from_proto(kind: type[E], value: int, what: str = "") -> E:
    """The member of enum ``kind`` for proto number ``value``.

    Raises:
        ConversionError: ``value`` is 0 (``*_UNSPECIFIED``) or unknown.
    """
    table = FROM_PROTO[kind]
    member = table[value] if 0 <= value < len(table) else None
    if member is None:
        raise ConversionError(f"{what or kind.__name__}: bad or unspecified {kind.__name__} value {value}")
    return cast(E, member)


# --------------------------------------------------------------------------- cards

_CARD_PB: tuple[pb.Card, ...] = tuple(cast(Any, pb.Card)(rank=(c >> 2) + 1, suit=(c & 3) + 1) for c in CARDS)


def card_to_proto(card: int) -> pb.Card:
    """A card (0..39) as a ``mus.v1.Card`` (a fresh message)."""
    out = pb.Card()
    out.CopyFrom(_CARD_PB[card])
    return out


def card_from_proto(msg: pb.Card) -> Card:
    """A ``mus.v1.Card`` as a :class:`Card`.

    Raises:
        ConversionError: rank or suit unspecified or out of range.
    """
    rank, suit = msg.rank, msg.suit
    if not (1 <= rank <= 10 and 1 <= suit <= 4):
        raise ConversionError(f"bad card: rank {rank}, suit {suit}")
    return CARDS[(rank - 1) * 4 + suit - 1]


def cards_from_proto(msgs: Iterable[pb.Card]) -> tuple[Card, ...]:
    """Repeated ``mus.v1.Card`` as a tuple of :class:`Card`."""
    return tuple(card_from_proto(m) for m in msgs)


def extend_cards(field: Any, cards: Iterable[int]) -> None:
    """Append cards to a repeated ``mus.v1.Card`` field."""
    for c in cards:
        field.add(rank=(c >> 2) + 1, suit=(c & 3) + 1)


# --------------------------------------------------------------------------- actions

def fill_action(out: pb.Action, action: Action) -> None:
    """Write ``action`` into an existing ``mus.v1.Action`` (the allocation-free path)."""
    kind = action.kind
    if kind is ActionKind.ENVIDO:
        out.envido.amount = action.amount
    elif kind is ActionKind.DISCARD:
        extend_cards(out.discard.cards, action.cards)
        out.discard.SetInParent()
    else:
        getattr(out, ACTION_FIELD[kind]).SetInParent()


def action_to_proto(action: Action) -> pb.Action:
    """An :class:`Action` as a ``mus.v1.Action``."""
    out = pb.Action()
    fill_action(out, action)
    return out


def action_from_proto(msg: pb.Action) -> Action:
    """A ``mus.v1.Action`` as an :class:`Action` (a bot's answer is untrusted input: the
    arena reads it with this function too).

    Raises:
        ConversionError: no kind set, a bad card or more than 4 cards in a discard, or
            an envido amount above :data:`MAX_AMOUNT`.
    """
    which = msg.WhichOneof("kind")
    if which is None:
        raise ConversionError("action has no kind set")
    kind = FIELD_ACTION[which]
    if kind is ActionKind.ENVIDO:
        amount = msg.envido.amount
        if amount > MAX_AMOUNT:
            raise ConversionError(f"envido amount {amount} is out of range")
        return envido(amount)
    if kind is ActionKind.DISCARD:
        cards = msg.discard.cards
        if len(cards) > 4:
            raise ConversionError(f"a discard of {len(cards)} cards")
        return discard(cards_from_proto(cards))
    return FIXED_ACTIONS[kind]


def legal_action_to_proto(entry: LegalAction) -> pb.LegalAction:
    """One legal-action entry as a ``mus.v1.LegalAction`` (``max_amount`` ``None`` -> 0)."""
    out = pb.LegalAction()
    _fill_legal(out, entry)
    return out


def fill_legal(field: Any, legal: Iterable[LegalAction]) -> None:
    """Append legal-action entries to a repeated ``mus.v1.LegalAction`` field."""
    for entry in legal:
        _fill_legal(field.add(), entry)


def _fill_legal(out: pb.LegalAction, entry: LegalAction) -> None:
    if isinstance(entry, EnvidoRange):
        out.envido.min_amount = entry.min_amount
        out.envido.max_amount = entry.max_amount or 0
        out.envido.SetInParent()
    elif isinstance(entry, DiscardRange):
        extend_cards(out.discard.cards, entry.cards)
        out.discard.min_count = entry.min_count
        out.discard.max_count = entry.max_count
        out.discard.SetInParent()
    elif entry.kind is ActionKind.ENVIDO:
        # A concrete envido offered as a legal action is a one-amount range.
        out.envido.min_amount = out.envido.max_amount = entry.amount
    elif entry.kind is ActionKind.DISCARD:
        raise ConversionError("a concrete discard cannot be a legal action; use DiscardRange")
    else:
        getattr(out, ACTION_FIELD[entry.kind]).SetInParent()


def legal_action_from_proto(msg: pb.LegalAction) -> LegalAction:
    """A ``mus.v1.LegalAction`` as an :class:`Action`, :class:`EnvidoRange` or :class:`DiscardRange`.

    Raises:
        ConversionError: no kind set.
    """
    which = msg.WhichOneof("kind")
    if which is None:
        raise ConversionError("legal action has no kind set")
    if which == "envido":
        r = msg.envido
        return EnvidoRange(r.min_amount, r.max_amount or None)
    if which == "discard":
        d = msg.discard
        return DiscardRange(cards_from_proto(d.cards), d.min_count, d.max_count)
    return FIXED_ACTIONS[FIELD_ACTION[which]]


def legal_actions_from_proto(msgs: Iterable[pb.LegalAction]) -> LegalActions:
    """Repeated ``mus.v1.LegalAction`` as :class:`LegalActions`.

    Raises:
        ConversionError: an entry has no kind set.
    """
    return LegalActions(legal_action_from_proto(e) for e in msgs)


# --------------------------------------------------------------------------- events


def _need(value: int | None, what: str, kind: EventKind) -> int:
    if value is None:
        raise ConversionError(f"{kind.value} event needs {what}")
    return value


def event_to_proto(event: Event) -> pb.Event:
    """An :class:`Event` as a ``mus.v1.Event``.

    Raises:
        ConversionError: a field the event's kind needs is missing.
    """
    out = pb.Event()
    k = event.kind
    if k is EventKind.MUS_CALL:
        out.mus_call.seat = _need(event.seat, "seat", k)
        out.mus_call.wants_mus = event.action is not None and event.action.kind is ActionKind.MUS
    elif k is EventKind.DISCARD:
        out.discard.seat = _need(event.seat, "seat", k)
        out.discard.count = event.value
    elif k is EventKind.REPLACEMENTS:
        out.replacements.round = event.value
        out.replacements.SetInParent()
    elif k is EventKind.RESHUFFLE:
        out.reshuffle.cards = event.value
        out.reshuffle.SetInParent()
    elif k is EventKind.DECLARATION:
        out.declaration.seat = _need(event.seat, "seat", k)
        out.declaration.lance = TO_PROTO[_need_lance(event.lance, k)]
        out.declaration.has = bool(event.value)
    elif k is EventKind.LANCE_START:
        out.lance_start.lance = TO_PROTO[_need_lance(event.lance, k)]
    elif k is EventKind.BET:
        out.bet.seat = _need(event.seat, "seat", k)
        out.bet.lance = TO_PROTO[_need_lance(event.lance, k)]
        if event.action is None:
            raise ConversionError("bet event needs action")
        fill_action(out.bet.action, event.action)
    elif k is EventKind.DEJE:
        out.deje.team = _need(event.team, "team", k)
        out.deje.points = event.value
    elif k is EventKind.LANCE_END:
        out.lance_end.lance = TO_PROTO[_need_lance(event.lance, k)]
        if event.outcome is None:
            raise ConversionError("lance_end event needs outcome")
        out.lance_end.outcome = TO_PROTO[event.outcome]
    elif k is EventKind.SIGNAL:
        out.signal.seat = _need(event.seat, "seat", k)
        if event.sena is None:
            raise ConversionError("signal event needs sena")
        out.signal.sena = TO_PROTO[event.sena]
    return out


def _need_lance(lance: Lance | None, kind: EventKind) -> Lance:
    if lance is None:
        raise ConversionError(f"{kind.value} event needs lance")
    return lance


def event_from_proto(msg: pb.Event) -> Event:
    """A ``mus.v1.Event`` as an :class:`Event`.

    Raises:
        ConversionError: no kind set, or an unspecified enum.
    """
    which = msg.WhichOneof("kind")
    if which == "bet":
        b = msg.bet
        return Event(
            EventKind.BET,
            seat=b.seat,
            lance=enum_from_proto(Lance, b.lance),
            action=action_from_proto(b.action),
        )
    if which == "mus_call":
        m = msg.mus_call
        return Event(EventKind.MUS_CALL, seat=m.seat, action=MUS if m.wants_mus else NO_MUS)
    if which == "discard":
        return Event(EventKind.DISCARD, seat=msg.discard.seat, value=msg.discard.count)
    if which == "replacements":
        return Event(EventKind.REPLACEMENTS, value=msg.replacements.round)
    if which == "reshuffle":
        return Event(EventKind.RESHUFFLE, value=msg.reshuffle.cards)
    if which == "declaration":
        d = msg.declaration
        return Event(
            EventKind.DECLARATION, seat=d.seat, lance=enum_from_proto(Lance, d.lance), value=int(d.has)
        )
    if which == "lance_start":
        return Event(EventKind.LANCE_START, lance=enum_from_proto(Lance, msg.lance_start.lance))
    if which == "deje":
        return Event(EventKind.DEJE, team=msg.deje.team, value=msg.deje.points)
    if which == "lance_end":
        e = msg.lance_end
        return Event(
            EventKind.LANCE_END,
            lance=enum_from_proto(Lance, e.lance),
            outcome=enum_from_proto(LanceOutcome, e.outcome),
        )
    if which == "signal":
        return Event(EventKind.SIGNAL, seat=msg.signal.seat, sena=enum_from_proto(Sena, msg.signal.sena))
    raise ConversionError("event has no kind set")


# --------------------------------------------------------------------------- rules

_RULES_CACHE: dict[bytes, Rules] = {}


def rules_to_proto(rules: Rules) -> pb.Rules:
    """:class:`Rules` as a ``mus.v1.Rules`` (``max_stake`` ``None`` -> 0)."""
    out = pb.Rules(
        players=rules.players,
        kings=rules.kings,
        target_points=rules.target_points,
        games_to_win=rules.games_to_win,
        vacas_to_win=rules.vacas_to_win,
        juego_real=TO_PROTO[rules.juego_real],
        signals=TO_PROTO[rules.signals],
        interception_p=rules.interception_p,
        signal_timing_rules=rules.signal_timing_rules,
        mus_corrido=TO_PROTO[rules.mus_corrido],
        plural_answers_bind_partner=rules.plural_answers_bind_partner,
        max_stake=rules.max_stake or 0,
    )
    if rules.max_mus_rounds is not None:
        out.max_mus_rounds = rules.max_mus_rounds
    return out


def rules_from_proto(msg: pb.Rules) -> Rules:
    """A ``mus.v1.Rules`` as :class:`Rules`. Cached: every request of a match repeats them.

    Raises:
        ConversionError: an unspecified enum or an impossible variant.
    """
    key = msg.SerializeToString(deterministic=True)
    cached = _RULES_CACHE.get(key)
    if cached is not None:
        return cached
    try:
            rules = Rules(
            players=msg.players,
            kings=msg.kings,
            target_points=msg.target_points,
            games_to_win=msg.games_to_win,
            vacas_to_win=msg.vacas_to_win,
            juego_real=enum_from_proto(JuegoReal, msg.juego_real, "rules.juego_real"),
            signals=enum_from_proto(SignalMode, msg.signals, "rules.signals"),
            interception_p=msg.interception_p,
            signal_timing_rules=msg.signal_timing_rules,
            mus_corrido=enum_from_proto(MusCorrido, msg.mus_corrido, "rules.mus_corrido"),
            plural_answers_bind_partner=msg.plural_answers_bind_partner,
            max_stake=msg.max_stake or None,
            max_mus_rounds=msg.max_mus_rounds if msg.HasField("max_mus_rounds") else None,
        )
    except ValueError as exc:  # an impossible variant (e.g. 3 players): the sender's bug
        raise ConversionError(str(exc)) from None
    if len(_RULES_CACHE) > 32:
        _RULES_CACHE.clear()
    _RULES_CACHE[key] = rules
    return rules
