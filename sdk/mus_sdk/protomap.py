"""The one mapping between :mod:`mus_core`'s enums and the ``mus.v1`` proto enums.

Each core enum has a proto twin whose values are the member names with the enum's
prefix (``Lance.GRANDE`` is ``LANCE_GRANDE``); value 0 is ``*_UNSPECIFIED``, which no
member maps to. The tables below are built from the proto descriptors by those names,
so a member and its proto value can only disagree by name, and then this module fails
at import (a test also checks every value both ways). ``mus_sdk.convert`` and the
arena's wire layer both convert through these tables: the numbering is written
nowhere else.

Actions are a ``oneof`` rather than an enum: :data:`ACTION_FIELD` names the field of
``mus.v1.Action`` (and ``LegalAction``) for each :class:`~mus_core.actions.ActionKind`.
"""

from __future__ import annotations

import enum
from typing import Any

from mus.v1 import bot_service_pb2 as svc_pb
from mus.v1 import game_pb2 as pb
from mus_core.actions import ActionKind
from mus_core.cards import Rank, Suit
from mus_core.events import Lance, LanceOutcome, MatchEndReason, Phase, Sena
from mus_core.rules import JuegoReal, MusCorrido, SignalMode

__all__ = ["ACTION_FIELD", "ENUMS", "FIELD_ACTION", "FROM_PROTO", "TO_PROTO", "proto_enum_name", "to_proto"]

ENUMS: dict[type[enum.Enum], Any] = {
    Rank: pb.Rank,
    Suit: pb.Suit,
    Lance: pb.Lance,
    Phase: pb.Phase,
    Sena: pb.Sena,
    LanceOutcome: pb.LanceOutcome,
    JuegoReal: pb.JuegoReal,
    SignalMode: pb.SignalMode,
    MusCorrido: pb.MusCorrido,
    MatchEndReason: svc_pb.MatchEndReason,
}
"""Every core enum that crosses the wire, with its proto enum (the generated wrapper)."""


def proto_enum_name(kind: type[enum.Enum]) -> str:
    """The proto value prefix of ``kind``: ``LanceOutcome`` -> ``LANCE_OUTCOME``."""
    name = ENUMS[kind].DESCRIPTOR.name
    return "".join("_" + c if c.isupper() and i else c for i, c in enumerate(name)).upper()


def _tables() -> tuple[dict[enum.Enum, Any], dict[type[enum.Enum], tuple[Any, ...]]]:
    to_proto: dict[enum.Enum, Any] = {}  # Any: each generated enum field has its own int type
    from_proto: dict[type[enum.Enum], tuple[Any, ...]] = {}
    for kind, proto in ENUMS.items():
        prefix = proto_enum_name(kind) + "_"
        values = proto.DESCRIPTOR.values_by_name
        top = max(v.number for v in proto.DESCRIPTOR.values)
        table: list[Any] = [None] * (top + 1)
        for member in kind:
            number = values[prefix + member.name].number  # KeyError: a member without a proto value
            to_proto[member] = number
            table[number] = member
        from_proto[kind] = tuple(table)
    return to_proto, from_proto


TO_PROTO, FROM_PROTO = _tables()
"""``TO_PROTO[member]`` is the proto number of a core enum member; ``FROM_PROTO[kind][n]``
the member of ``kind`` for proto number ``n`` (``None`` for 0, ``*_UNSPECIFIED``)."""


def to_proto(member: enum.Enum) -> Any:
    """The proto number of a core enum member.

    Typed ``Any`` on purpose: the generated stubs type each enum field with its own enum
    type (a distinct ``int`` type per enum), and this one function feeds all of them.
    """
    return TO_PROTO[member]


ACTION_FIELD: dict[ActionKind, str] = {
    kind: pb.Action.DESCRIPTOR.fields_by_name[kind.name.lower()].name for kind in ActionKind
}
"""The ``oneof kind`` field of ``mus.v1.Action`` for each action kind (``no_mus``...)."""

FIELD_ACTION: dict[str, ActionKind] = {name: kind for kind, name in ACTION_FIELD.items()}
"""The inverse of :data:`ACTION_FIELD`."""
