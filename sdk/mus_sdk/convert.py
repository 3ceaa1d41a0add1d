"""Conversions between the wire messages of ``mus.v1`` and the SDK's typed values.

Every function is public and total over valid input: ``x_from_proto(x_to_proto(v)) == v``
for every value the SDK can represent (the round trips are tested). Invalid wire input
(an ``*_UNSPECIFIED`` enum, an empty ``oneof``, a card out of range, an absurd amount)
raises :class:`ConversionError`, never a bare ``KeyError``.

The values are :mod:`mus_core`'s, the arena engine's own, so the arena converts with
these functions too (``arena.wire``): to build notifications, to read the bots'
decisions, and to run a :class:`~mus_sdk.Bot` in-process. Enum numbers come from
:mod:`mus_sdk.protomap`, the one mapping; a card's proto ``rank``/``suit`` are the
core ``Rank``/``Suit`` values + 1.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable
from typing import Any, TypeVar, cast

from mus.v1 import bot_service_pb2 as svc_pb
from mus.v1 import game_pb2 as pb
from mus_core.events import HandEnd

from mus_sdk import handshake
from mus_sdk.protomap import ACTION_FIELD, FIELD_ACTION, FROM_PROTO, TO_PROTO
from mus_sdk.types import (
    CARDS,
    FIXED_ACTIONS,
    MUS,
    NO_MUS,
    Action,
    ActionKind,
    BotInfo,
    Card,
    Declarations,
    DiscardRange,
    EnvidoRange,
    Event,
    EventKind,
    HandResult,
    JuegoReal,
    Lance,
    LanceOutcome,
    LanceResult,
    LazyHistory,
    LegalAction,
    LegalActions,
    LiveBet,
    MatchEnd,
    MatchEndReason,
    MatchInfo,
    MusCorrido,
    Observation,
    Phase,
    Rules,
    Sena,
    SignalMode,
    discard,
    envido,
)

__all__ = [
    "MAX_AMOUNT",
    "ConversionError",
    "action_from_proto",
    "action_to_proto",
    "bot_info_from_proto",
    "bot_info_to_proto",
    "card_from_proto",
    "card_to_proto",
    "cards_from_proto",
    "decision_from_proto",
    "decision_to_proto",
    "enum_from_proto",
    "enum_to_proto",
    "event_from_proto",
    "event_to_proto",
    "extend_cards",
    "fill_action",
    "fill_legal",
    "hand_summary_from_proto",
    "hand_summary_to_proto",
    "legal_action_from_proto",
    "legal_action_to_proto",
    "legal_actions_from_proto",
    "live_bet_from_proto",
    "live_bet_to_proto",
    "match_info_from_proto",
    "match_info_to_proto",
    "match_result_from_proto",
    "match_result_to_proto",
    "observation_from_proto",
    "observation_to_proto",
    "rules_from_proto",
    "rules_to_proto",
]


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


# --------------------------------------------------------------------------- observation


def live_bet_to_proto(bet: LiveBet) -> svc_pb.LiveBet:
    """A :class:`LiveBet` as a ``mus.v1.LiveBet``."""
    return svc_pb.LiveBet(
        team=bet.team, seat=bet.seat, stake=bet.stake, deje=bet.deje, is_ordago=bet.is_ordago
    )


def live_bet_from_proto(msg: svc_pb.LiveBet) -> LiveBet:
    """A ``mus.v1.LiveBet`` as a :class:`LiveBet`."""
    return LiveBet(team=msg.team, seat=msg.seat, stake=msg.stake, deje=msg.deje, is_ordago=msg.is_ordago)


def observation_from_proto(msg: svc_pb.DecisionRequest) -> Observation:
    """A ``mus.v1.DecisionRequest`` as an :class:`Observation`.

    The fields are converted lazily, each on its first access: a bot pays only for what
    it reads (see :class:`_WireObservation`). The result is an :class:`Observation`
    (``isinstance``), equal both ways to an eager one with the same values, with the
    same hash and ``repr``; ``dataclasses.replace``, ``copy`` and ``pickle`` give fully
    converted copies. ``msg`` must not be changed afterwards (fields not yet read would
    show the change); the SDK parses a fresh message for every request.

    Raises:
        ConversionError: an unspecified phase (here); an unspecified enum or a bad card or
            action: on each access to the field that holds it, and so also from ``repr``,
            ``==`` or ``hash`` (a well-formed request, as the arena sends, has none).
    """
    phase = msg.phase
    if not 1 <= phase <= 4:
        raise ConversionError(f"decision request {msg.request_id}: bad or unspecified phase {phase}")
    obs = _new_wire_observation(_WireObservation)
    _WIRE_MSG.__set__(obs, msg)
    return obs


class _WireObservation(Observation):
    """An :class:`Observation` whose fields are converted from its ``DecisionRequest`` on
    first access, then kept in the parent's slots.

    Why: converting all 22 fields costs ~15 µs of a bot's CPU per decision in a warm
    loop, and far more inside a match, where every round trip starts with cold caches.
    Measured on a trivial bot (which reads only ``legal_actions``): the bot's Python work per
    decision 19 -> 9 µs, and a whole match ~14% more decisions per second (median of 8
    paired A/B rounds; docs/performance.md). Most bots read a few fields.

    Each field is a property over the parent's slot: reading an empty slot converts and
    stores once; the dataclass ``__init__`` (used by ``dataclasses.replace``) writes
    through the setter, so such copies are fully converted and need no message. Two
    threads reading a field for the first time may both convert it (equal values).
    """

    __slots__ = ("_msg",)

    def __eq__(self, other: object) -> bool:
        # The dataclass __eq__ only compares instances of the very same class; an
        # observation from the wire equals an eager one with the same fields.
        if isinstance(other, Observation):
            return _field_values(self) == _field_values(other)
        return NotImplemented

    __hash__ = Observation.__hash__

    def __repr__(self) -> str:
        return "Observation(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in _OBSERVATION_FIELDS) + ")"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickles (and copies) as an eager Observation: the message stays behind.
        values = _field_values(self)
        return (Observation, (*values[:_HISTORY], tuple(self.history), *values[_HISTORY + 1 :]))


_new_wire_observation = object.__new__
_WIRE_MSG: Any = _WireObservation.__dict__["_msg"]


def _field_values(obs: Observation) -> tuple[Any, ...]:
    return tuple(getattr(obs, f) for f in _OBSERVATION_FIELDS)


def _lazy_field(name: str, convert: Any) -> property:
    slot = Observation.__dict__[name]  # the parent's slot descriptor

    def get(self: _WireObservation) -> Any:
        try:
            return slot.__get__(self)
        except AttributeError:  # first access: convert and keep
            value = convert(_WIRE_MSG.__get__(self))
            slot.__set__(self, value)
            return value

    return property(get, slot.__set__)


_PHASES = FROM_PROTO[Phase]
_LANCES = FROM_PROTO[Lance]

# How each Observation field is read from a DecisionRequest.
_FROM_REQUEST: dict[str, Any] = {
    "request_id": lambda m: m.request_id,
    "match_id": lambda m: m.match_id,
    "seat": lambda m: m.seat,
    "phase": lambda m: _PHASES[m.phase],
    "lance": lambda m: _LANCES[m.lance] if 0 < m.lance < len(_LANCES) else None,
    "cards": lambda m: cards_from_proto(m.cards),
    "legal_actions": lambda m: legal_actions_from_proto(m.legal_actions),
    "mano": lambda m: m.mano,
    "dealer": lambda m: m.dealer,
    "scores": lambda m: tuple(m.scores),
    "history": lambda m: LazyHistory(m.history, event_from_proto),
    "rules": lambda m: rules_from_proto(m.rules),
    "game": lambda m: m.game,
    "hand": lambda m: m.hand,
    "games_won": lambda m: tuple(m.games_won),
    "vacas_won": lambda m: tuple(m.vacas_won),
    "target_points": lambda m: m.target_points,
    "discard_round": lambda m: m.discard_round,
    "bet": lambda m: live_bet_from_proto(m.bet) if m.HasField("bet") else None,
    "legal_senas": lambda m: tuple(enum_from_proto(Sena, s) for s in m.legal_senas),
    "deadline_ms": lambda m: m.deadline_ms,
    "time_bank_ms": lambda m: m.time_bank_ms,
}
_OBSERVATION_FIELDS = tuple(f.name for f in dataclasses.fields(Observation))
_HISTORY = _OBSERVATION_FIELDS.index("history")
if set(_FROM_REQUEST) != set(_OBSERVATION_FIELDS):  # a field added to Observation needs its converter
    raise AssertionError(f"Observation fields without a converter: {set(_OBSERVATION_FIELDS) ^ set(_FROM_REQUEST)}")
for _name in _OBSERVATION_FIELDS:
    setattr(_WireObservation, _name, _lazy_field(_name, _FROM_REQUEST[_name]))
del _name


def observation_to_proto(obs: Observation) -> svc_pb.DecisionRequest:
    """An :class:`Observation` as a ``mus.v1.DecisionRequest``."""
    out = svc_pb.DecisionRequest(
        request_id=obs.request_id,
        match_id=obs.match_id,
        seat=obs.seat,
        phase=TO_PROTO[obs.phase],
        lance=TO_PROTO[obs.lance] if obs.lance is not None else cast(Any, 0),
        mano=obs.mano,
        dealer=obs.dealer,
        scores=obs.scores,
        game=obs.game,
        hand=obs.hand,
        games_won=obs.games_won,
        vacas_won=obs.vacas_won,
        target_points=obs.target_points,
        discard_round=obs.discard_round,
        legal_senas=[TO_PROTO[s] for s in obs.legal_senas],
        deadline_ms=obs.deadline_ms,
        time_bank_ms=obs.time_bank_ms,
    )
    extend_cards(out.cards, obs.cards)
    fill_legal(out.legal_actions, obs.legal_actions)
    out.history.extend(event_to_proto(e) for e in obs.history)
    out.rules.CopyFrom(rules_to_proto(obs.rules))
    if obs.bet is not None:
        out.bet.CopyFrom(live_bet_to_proto(obs.bet))
    return out


# --------------------------------------------------------------------------- match lifecycle


def match_info_to_proto(info: MatchInfo) -> svc_pb.MatchStart:
    """A :class:`MatchInfo` as a ``mus.v1.MatchStart``."""
    out = svc_pb.MatchStart(
        match_id=info.match_id,
        seat=info.seat,
        partner_seats=info.partners,
        num_seats=info.num_seats,
        scores=info.scores,
        games_won=info.games_won,
        time_bank_ms=info.time_bank_ms,
        decision_deadline_ms=info.decision_deadline_ms,
        protocol_version=info.protocol_version,
        seat_names=info.seat_names,
    )
    out.rules.CopyFrom(rules_to_proto(info.rules))
    return out


def match_info_from_proto(msg: svc_pb.MatchStart) -> MatchInfo:
    """A ``mus.v1.MatchStart`` as a :class:`MatchInfo`."""
    return MatchInfo(
        match_id=msg.match_id,
        seat=msg.seat,
        partners=tuple(msg.partner_seats),
        num_seats=msg.num_seats,
        rules=rules_from_proto(msg.rules),
        scores=tuple(msg.scores),
        games_won=tuple(msg.games_won),
        time_bank_ms=msg.time_bank_ms,
        decision_deadline_ms=msg.decision_deadline_ms,
        protocol_version=msg.protocol_version,
        seat_names=tuple(msg.seat_names),
    )


def _set_opt(msg: Any, name: str, value: int | None) -> None:
    if value is not None:
        setattr(msg, name, value)


def _get_opt(msg: Any, name: str) -> int | None:
    return getattr(msg, name) if msg.HasField(name) else None


def hand_summary_to_proto(result: HandResult) -> svc_pb.HandEnd:
    """A :class:`HandResult` as a ``mus.v1.HandEnd`` (the result plus the games won after it)."""
    out = svc_pb.HandEnd(games_won=result.games_won)
    r = out.result
    r.game, r.hand, r.dealer, r.mano = result.game, result.hand, result.dealer, result.mano
    for hand in result.hands:
        extend_cards(r.hands.add().cards, hand)
    for lr in result.lances:
        m = r.lances.add(
            lance=TO_PROTO[lr.lance],
            outcome=TO_PROTO[lr.outcome],
            stake=lr.stake,
            deje=lr.deje,
            points=lr.points,
            stake_points=lr.stake_points,
            value_points=lr.value_points,
            counted=lr.counted,
        )
        _set_opt(m, "bet_team", lr.bet_team)
        _set_opt(m, "winner_seat", lr.winner_seat)
        _set_opt(m, "winner_team", lr.winner_team)
    r.scores_before.extend(result.scores_before)
    r.scores_after.extend(result.scores_after)
    r.game_over = result.game_over
    _set_opt(r, "game_winner", result.game_winner)
    r.ended_by = str(result.ended_by)
    # .get with the names: a plain dict, as HandSummary held before Declarations, works too.
    r.has_pares.extend(result.declarations.get("pares", ()))  # type: ignore[call-overload]
    r.has_juego.extend(result.declarations.get("juego", ()))  # type: ignore[call-overload]
    return out


def hand_summary_from_proto(msg: svc_pb.HandEnd) -> HandResult:
    """A ``mus.v1.HandEnd`` as a :class:`HandResult` (``vacas_won`` is not on the wire: (0, 0)).

    Raises:
        ConversionError: an unspecified enum, a bad card or an unknown ``ended_by``.
    """
    r = msg.result
    try:
        ended_by = HandEnd(r.ended_by)
    except ValueError:
        raise ConversionError(f"hand_end: unknown ended_by {r.ended_by!r}") from None
    return HandResult(
        game=r.game,
        hand=r.hand,
        dealer=r.dealer,
        mano=r.mano,
        hands=tuple(cards_from_proto(h.cards) for h in r.hands),
        lances=tuple(
            LanceResult(
                lance=enum_from_proto(Lance, m.lance),
                outcome=enum_from_proto(LanceOutcome, m.outcome),
                stake=m.stake,
                bet_team=_get_opt(m, "bet_team"),
                deje=m.deje,
                winner_seat=_get_opt(m, "winner_seat"),
                winner_team=_get_opt(m, "winner_team"),
                points=m.points,
                stake_points=m.stake_points,
                value_points=m.value_points,
                counted=m.counted,
            )
            for m in r.lances
        ),
        scores_before=tuple(r.scores_before),
        scores_after=tuple(r.scores_after),
        game_over=r.game_over,
        game_winner=_get_opt(r, "game_winner"),
        ended_by=ended_by,
        declarations=Declarations(tuple(r.has_pares) or None, tuple(r.has_juego) or None),
        games_won=tuple(msg.games_won),
    )


def match_result_to_proto(result: MatchEnd) -> svc_pb.MatchEnd:
    """A :class:`MatchEnd` as a ``mus.v1.MatchEnd``."""
    out = svc_pb.MatchEnd(
        games_won=result.games_won,
        reason=TO_PROTO[result.reason],
        detail=result.detail,
        vacas_won=result.vacas_won,
    )
    _set_opt(out, "winner_team", result.winner_team)
    return out


def match_result_from_proto(msg: svc_pb.MatchEnd) -> MatchEnd:
    """A ``mus.v1.MatchEnd`` as a :class:`MatchEnd`.

    Raises:
        ConversionError: an unspecified reason.
    """
    return MatchEnd(
        games_won=tuple(msg.games_won),
        winner_team=_get_opt(msg, "winner_team"),
        reason=enum_from_proto(MatchEndReason, msg.reason, "match_end.reason"),
        detail=msg.detail,
        vacas_won=tuple(msg.vacas_won),
    )


# --------------------------------------------------------------------------- decisions and info


def decision_to_proto(request_id: int, action: Action, sena: Sena | None = None) -> svc_pb.Decision:
    """The answer to request ``request_id``: ``action``, with an optional seña."""
    out = svc_pb.Decision(request_id=request_id)
    fill_action(out.action, action)
    if sena is not None:
        out.sena = TO_PROTO[sena]
    return out


def decision_from_proto(msg: svc_pb.Decision) -> tuple[int, Action, Sena | None]:
    """A ``mus.v1.Decision`` as ``(request_id, action, sena or None)``.

    Raises:
        ConversionError: no action kind, a bad card, or an unspecified seña.
    """
    sena = enum_from_proto(Sena, msg.sena, "decision.sena") if msg.HasField("sena") else None
    return msg.request_id, action_from_proto(msg.action), sena


def bot_info_to_proto(
    info: BotInfo, protocol_versions: Iterable[int] = handshake.SUPPORTED_APP_PROTOCOL_VERSIONS, sdk: str = ""
) -> svc_pb.GetInfoResponse:
    """A :class:`BotInfo` as a ``mus.v1.GetInfoResponse``."""
    return svc_pb.GetInfoResponse(
        name=info.name,
        version=info.version,
        author=info.author,
        protocol_versions=list(protocol_versions),
        sdk=sdk,
    )


def bot_info_from_proto(msg: svc_pb.GetInfoResponse) -> tuple[BotInfo, tuple[int, ...], str]:
    """A ``mus.v1.GetInfoResponse`` as ``(BotInfo, protocol versions, sdk)``."""
    return BotInfo(msg.name, msg.version, msg.author), tuple(msg.protocol_versions), msg.sdk
