"""The one enum mapping (mus_sdk.protomap) against the proto descriptors: every value of
every proto enum is mapped, the numbers agree both ways, and nothing is left unmapped."""

from __future__ import annotations

import enum

import pytest
from mus.v1 import bot_service_pb2 as svc_pb
from mus.v1 import game_pb2 as pb
from mus_core import CARDS, ActionKind, EventKind, Rank, Suit
from mus_sdk import protomap
from mus_sdk.convert import card_from_proto, card_to_proto

PROTO_FILES = (pb.DESCRIPTOR, svc_pb.DESCRIPTOR)


def test_every_proto_enum_has_a_core_enum() -> None:
    """No enum of mus.v1 is left out of the mapping."""
    declared = {e.full_name for f in PROTO_FILES for e in f.enum_types_by_name.values()}
    mapped = {proto.DESCRIPTOR.full_name for proto in protomap.ENUMS.values()}
    assert declared == mapped


@pytest.mark.parametrize("kind", list(protomap.ENUMS), ids=lambda k: k.__name__)
def test_every_value_is_mapped_both_ways(kind: type[enum.Enum]) -> None:
    """Each proto value but *_UNSPECIFIED (0) is exactly one member, of the same name, and back."""
    descriptor = protomap.ENUMS[kind].DESCRIPTOR
    prefix = protomap.proto_enum_name(kind) + "_"
    numbers = {v.number: v.name for v in descriptor.values}
    assert numbers[0] == prefix + "UNSPECIFIED"
    members = list(kind)
    assert len(members) == len(numbers) - 1, "a proto value without a member, or a member without one"
    for member in members:
        number = protomap.TO_PROTO[member]
        assert numbers[number] == prefix + member.name
        assert protomap.FROM_PROTO[kind][number] is member
    assert protomap.FROM_PROTO[kind][0] is None
    assert {n for n, m in enumerate(protomap.FROM_PROTO[kind]) if m is not None} == set(numbers) - {0}


@pytest.mark.parametrize("kind", list(protomap.ENUMS), ids=lambda k: k.__name__)
def test_numbers_are_positions_plus_one(kind: type[enum.Enum]) -> None:
    """The rule the docs state (and card conversion relies on: rank/suit + 1)."""
    assert [protomap.TO_PROTO[m] for m in kind] == list(range(1, len(kind) + 1))


def test_cards_follow_the_rank_and_suit_numbers() -> None:
    for card in CARDS:
        msg = card_to_proto(card)
        assert (msg.rank, msg.suit) == (protomap.TO_PROTO[Rank(card >> 2)], protomap.TO_PROTO[Suit(card & 3)])
        assert card_from_proto(msg) is card


def test_action_kinds_are_the_action_oneof() -> None:
    """Every ActionKind names a field of Action's oneof, and every field is one kind."""
    oneof = pb.Action.DESCRIPTOR.oneofs_by_name["kind"]
    assert set(protomap.ACTION_FIELD.values()) == {f.name for f in oneof.fields}
    assert {protomap.FIELD_ACTION[name] for name in protomap.ACTION_FIELD.values()} == set(ActionKind)
    legal = {f.name for f in pb.LegalAction.DESCRIPTOR.oneofs_by_name["kind"].fields}
    assert legal == set(protomap.ACTION_FIELD.values())


def test_event_kinds_are_the_event_oneof() -> None:
    oneof = pb.Event.DESCRIPTOR.oneofs_by_name["kind"]
    assert {f.name for f in oneof.fields} == {k.value for k in EventKind}
