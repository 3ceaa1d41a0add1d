"""One seat's decision requests, encoded straight to bytes.

Each :class:`~arena.remote.client.RemoteBot` owns a :class:`RequestEncoder`. A request
is concatenated from encodings kept across requests (protobuf parsers merge fields in
any order): the rules (per match), the seat's fields for the hand, its cards, the
legal-action entries, the live bet, the seña lists, and the history, of which only the
events new since the seat's last request are encoded. A property test checks that the
bytes parse to exactly what :func:`arena.wire.convert.fill_decision_request` builds.
Why bytes and caches: docs/performance.md, "Building requests".

:meth:`RequestEncoder.encode` is pure with respect to the encoder: it may run for a
request that is never sent (a driver prepares the next request for a guessed answer,
see :mod:`arena.referee.session`). Only :meth:`RequestEncoder.sent` moves the
history's base forward. Every cache is keyed by value, never by an object's identity.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mus.v1 import bot_service_pb2 as svc
from mus.v1 import game_pb2 as pb
from mus_core import CARDS, Card, Event, Lance, LegalAction, Observation, Phase, Rules, Sena

from arena.wire.convert import event_to_pb, fill_legal, pb_enum, rules_to_pb

_CACHE_LIMIT = 4096
"""Entries a cache holds before it is cleared (values are small; a match needs a few hundred)."""


@dataclass(frozen=True, slots=True)
class EncodedRequest:
    """A serialized ``PlayRequest`` holding one decision request, with the history it
    encodes (for :meth:`RequestEncoder.sent`)."""

    data: bytes
    history: tuple[Event, ...]
    history_bytes: bytes


class RequestEncoder:
    """The decision requests of one seat over a match (see the module docstring)."""

    __slots__ = ("_events", "_head", "_history", "_history_bytes", "_match_id", "_rules")

    def __init__(self) -> None:
        self._match_id = ""
        self._rules = _rules_field(rules_to_pb(Rules()))
        self._events: dict[Event, bytes] = {}
        self._head: tuple[tuple[Any, ...], bytes] = ((), b"")
        self._history: tuple[Event, ...] = ()
        self._history_bytes = b""

    def start_match(self, match_id: str, rules: Rules) -> None:
        """A new match: its id and rules go into every request; the history starts empty."""
        self._match_id = match_id
        self._rules = _rules_field(rules_to_pb(rules))
        self._history, self._history_bytes = (), b""

    def encode(self, view: Observation, request_id: int, deadline_ms: int, time_bank_ms: int) -> EncodedRequest:
        """The request for ``view`` (pure: see the module docstring)."""
        history, history_bytes = self._history_fields(tuple(view.history))  # the engine's tuple itself
        bet = view.bet
        inner = b"".join((
            self._head_fields(view),
            _uint(_TAG_REQUEST_ID, request_id),
            _cached(_STEP_FIELDS, (view.phase, view.lance, view.discard_round), _encode_step),
            _uint(_TAG_DEADLINE, deadline_ms),
            _uint(_TAG_TIME_BANK, max(0, time_bank_ms)),
            b"".join([_CARD_FIELDS[c] for c in view.cards]),
            b"".join([_OWN_DISCARD_FIELDS[c] for c in view.own_discards]),
            b"".join([_cached(_LEGAL_FIELDS, entry, _encode_legal) for entry in view.legal_actions]),
            _cached(_SENAS_FIELDS, view.legal_senas, _encode_senas) if view.legal_senas else b"",
            # Keyed by a plain tuple: LiveBet's own hash is the dataclass's, computed in Python.
            _cached(_BET_FIELDS, (bet.team, bet.seat, bet.stake, bet.deje, bet.is_ordago), _encode_bet)
            if bet is not None else b"",
            self._rules,
            history_bytes,
        ))
        return EncodedRequest(_DECISION_TAG + _varint(len(inner)) + inner, history, history_bytes)

    def sent(self, request: EncodedRequest) -> None:
        """``request`` went out: the next request's history appends to its own."""
        self._history, self._history_bytes = request.history, request.history_bytes

    def _history_fields(self, history: tuple[Event, ...]) -> tuple[tuple[Event, ...], bytes]:
        """``history`` as repeated ``DecisionRequest.history`` fields: only what is new
        since the last request sent, when that request's history is its beginning (a
        seat's history only grows within a hand)."""
        base, data = self._history, self._history_bytes
        n = len(base)
        if not (n and len(history) >= n and history[:n] == base):
            n, data = 0, b""
        if len(history) > n:
            data += b"".join([self._event_field(e) for e in history[n:]])
        return history, data

    def _event_field(self, event: Event) -> bytes:
        data = self._events.get(event)
        if data is None:
            body = event_to_pb(event).SerializeToString()
            data = _HISTORY_TAG + _varint(len(body)) + body
            if len(self._events) >= _CACHE_LIMIT:
                self._events.clear()
            self._events[event] = data
        return data

    def _head_fields(self, view: Observation) -> bytes:
        """The fields that stay the same for a seat through a hand (until a deje
        changes the scores): seat, mano, dealer, scores, match, game, hand, games and
        vacas won, target."""
        key = (view.seat, view.hand, view.game, view.scores, view.games_won, view.mano, view.dealer,
               self._match_id, view.vacas_won, view.rules.target_points)
        if key != self._head[0]:
            self._head = (key, _encode_head(key))
        return self._head[1]


# ---------------------------------------------------------------------- protobuf's wire format


def _varint(n: int) -> bytes:
    if n < 0x80:
        return _SMALL_VARINTS[n]
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if not n:
            out.append(byte)
            return bytes(out)
        out.append(byte | 0x80)


_SMALL_VARINTS = tuple(bytes((i,)) for i in range(0x80))


def _field_tag(number: int) -> bytes:
    """The key of a length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2)


def _scalar_tag(name: str) -> bytes:
    """The key of a varint field of ``DecisionRequest``."""
    return _varint(svc.DecisionRequest.DESCRIPTOR.fields_by_name[name].number << 3)


def _uint(tag: bytes, value: int) -> bytes:
    """A varint field; zero is the default and is left out, as protobuf does."""
    return tag + _varint(value) if value else b""


def _packed(tag: bytes, values: tuple[int, ...]) -> bytes:
    """A packed repeated varint field (proto3's encoding of ``repeated uint32``)."""
    if not values:
        return b""
    payload = b"".join([_varint(v) for v in values])
    return tag + _varint(len(payload)) + payload


_REQUEST_FIELDS = svc.DecisionRequest.DESCRIPTOR.fields_by_name
_HISTORY_TAG = _field_tag(_REQUEST_FIELDS["history"].number)
_RULES_TAG = _field_tag(_REQUEST_FIELDS["rules"].number)
_DECISION_TAG = _field_tag(svc.PlayRequest.DESCRIPTOR.fields_by_name["decision_request"].number)
(_TAG_REQUEST_ID, _TAG_PHASE, _TAG_LANCE, _TAG_DEADLINE, _TAG_TIME_BANK, _TAG_DISCARD_ROUND,
 _TAG_SEAT, _TAG_MANO, _TAG_DEALER, _TAG_GAME, _TAG_HAND, _TAG_TARGET) = (
    _scalar_tag(name)
    for name in ("request_id", "phase", "lance", "deadline_ms", "time_bank_ms", "discard_round",
                 "seat", "mano", "dealer", "game", "hand", "target_points")
)
_TAG_MATCH_ID, _TAG_SCORES, _TAG_GAMES_WON, _TAG_VACAS_WON = (
    _field_tag(_REQUEST_FIELDS[name].number) for name in ("match_id", "scores", "games_won", "vacas_won")
)


def _rules_field(rules_pb: pb.Rules) -> bytes:
    data: bytes = rules_pb.SerializeToString()
    return _RULES_TAG + _varint(len(data)) + data


def _fragment(fill: Callable[[svc.DecisionRequest], None]) -> bytes:
    """The encoding of the fields ``fill`` sets on an empty ``DecisionRequest``."""
    msg = svc.DecisionRequest()
    fill(msg)
    data: bytes = msg.SerializeToString()
    return data


def _card_field(card: Card) -> bytes:
    return _fragment(lambda m: m.cards.add(rank=(card >> 2) + 1, suit=(card & 3) + 1))


_CARD_FIELDS = tuple(_card_field(c) for c in CARDS)


def _own_discard_field(card: Card) -> bytes:
    return _fragment(lambda m: m.own_discards.add(rank=(card >> 2) + 1, suit=(card & 3) + 1))


_OWN_DISCARD_FIELDS = tuple(_own_discard_field(c) for c in CARDS)
# Shared by every encoder: values are immutable bytes, so threads refereeing other
# matches at worst encode an entry twice.
_LEGAL_FIELDS: dict[Any, bytes] = {}
_STEP_FIELDS: dict[Any, bytes] = {}
_SENAS_FIELDS: dict[Any, bytes] = {}
_BET_FIELDS: dict[Any, bytes] = {}


def _cached(cache: dict[Any, bytes], key: Any, encode: Callable[[Any], bytes]) -> bytes:
    """``encode(key)``, memoised in ``cache`` (cleared when full)."""
    data = cache.get(key)
    if data is None:
        data = encode(key)
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = data
    return data


def _encode_legal(entry: LegalAction) -> bytes:
    return _fragment(lambda m: fill_legal(m.legal_actions, (entry,)))


def _encode_senas(senas: tuple[Sena, ...]) -> bytes:
    return _fragment(lambda m: m.legal_senas.extend([pb_enum(s) for s in senas]))


def _encode_bet(bet: tuple[int, int, int, int, bool]) -> bytes:
    def fill(m: svc.DecisionRequest) -> None:
        b = m.bet
        b.team, b.seat, b.stake, b.deje, b.is_ordago = bet
        b.SetInParent()

    return _fragment(fill)


def _encode_step(key: tuple[Phase, Lance | None, int]) -> bytes:
    """The fields that say where in the hand a request is: phase, lance, discard round."""
    phase, lance, discard_round = key
    return (_uint(_TAG_PHASE, pb_enum(phase)) + (_uint(_TAG_LANCE, pb_enum(lance)) if lance is not None else b"")
            + _uint(_TAG_DISCARD_ROUND, discard_round))


def _encode_head(key: tuple[Any, ...]) -> bytes:
    """The head fields from :meth:`RequestEncoder._head_fields`'s key."""
    seat, hand, game, scores, games_won, mano, dealer, match_id, vacas, target_points = key
    name = match_id.encode()
    return b"".join((
        _uint(_TAG_SEAT, seat), _uint(_TAG_MANO, mano), _uint(_TAG_DEALER, dealer),
        _uint(_TAG_GAME, game), _uint(_TAG_HAND, hand), _uint(_TAG_TARGET, target_points),
        _TAG_MATCH_ID + _varint(len(name)) + name if name else b"",
        _packed(_TAG_SCORES, scores), _packed(_TAG_GAMES_WON, games_won), _packed(_TAG_VACAS_WON, vacas),
    ))
