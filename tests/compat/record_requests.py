"""Record a corpus of decision requests as this arena sends them, with what the SDK reads.

A bot's contract is the bytes it is sent and what the SDK makes of them. This script
plays a few seeded matches with the engine, encodes every decision request of one seat
with the arena's own encoder (``arena.remote.encoder``, the bytes a bot process is
sent), and writes two files per variant into ``tests/compat/requests/``:

- ``<release>-<variant>.bin``: the serialized ``PlayRequest`` messages, each preceded by
  its length as 4 big-endian bytes;
- ``<release>-<variant>.json``: for each, the SDK's :class:`mus_sdk.Observation` as plain
  data (enums by name).

``tests/compat/test_compat.py`` decodes every recorded request with the current SDK and
compares it with the recorded reading: a field renamed, renumbered or given a new
meaning fails it. Record a new corpus at each release (``--release``); never rewrite an
old one, unless a break is intended, announced in CHANGELOG.md and the major version.

    .venv/bin/python tests/compat/record_requests.py --release v0.1.0
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import random
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mus.v1 import bot_service_pb2 as svc
from mus_core.actions import ActionKind
from mus_core.random_play import random_action
from mus_core.rules import Rules
from mus_core.state import MusState
from mus_sdk.convert import observation_from_proto

from arena.remote.encoder import RequestEncoder

HERE = Path(__file__).resolve().parent / "requests"

VARIANTS: dict[str, dict[str, Any]] = {
    "four-senas": {"signals": "public", "target_points": 40},
    "six-corrido": {"players": 6, "mus_corrido": "first_hand_of_each_game", "signals": "public"},
    "two-4kings": {"players": 2, "kings": 4},
}
"""The rule variants recorded: the default table with señas, a six-seat table with mus
corrido, and two seats with four kings (each touches fields the others leave empty)."""

SEED = 20261204
REQUESTS = 40
SEAT = 0


def plain(value: Any) -> Any:
    """``value`` as JSON-ready data: enums by name, dataclasses as field dicts, sequences
    as lists (the SDK's lazy containers included)."""
    if isinstance(value, enum.Enum):
        return value.name
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple: its fields by name
        return {name: plain(v) for name, v in zip(value._fields, value, strict=True)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return [plain(v) for v in value]


def requests(rules: Rules) -> Iterator[bytes]:
    """At least :data:`REQUESTS` serialized requests of seat :data:`SEAT`: random play over
    as many seeded matches as it takes (a new match after each one ends)."""
    rng = random.Random(SEED)
    encoder = RequestEncoder()
    request_id = 0
    for match in range(REQUESTS):
        state = MusState.new(rules, seed=SEED + match)
        encoder.start_match(f"compat-{match}", rules)
        while not state.is_terminal:
            seat = state.to_act
            assert seat is not None
            if seat == SEAT:
                request_id += 1
                encoded = encoder.encode(state.view(SEAT), request_id, 2000, 120_000 - 100 * request_id)
                encoder.sent(encoded)
                yield encoded.data
                if request_id >= REQUESTS:
                    return
            senas = state.legal_senas(seat)
            if senas and rng.random() < 0.3:
                state.give_sena(seat, senas[int(rng.random() * len(senas))])
            legal = state.legal_actions()
            mus = [a for a in legal if getattr(a, "kind", None) is ActionKind.MUS]
            if mus and rng.random() < 0.8:  # discards are a part of the contract too
                state.apply(mus[0])
                continue
            calm = [a for a in legal if getattr(a, "kind", None) is not ActionKind.ORDAGO]
            # Mostly without órdagos: random play would end most matches in their first lance.
            state.apply(random_action(rng, calm if calm and rng.random() < 0.95 else legal))


def reading(data: bytes) -> dict[str, Any]:
    """What the current SDK reads from one serialized request."""
    msg = svc.PlayRequest.FromString(data)
    obs = observation_from_proto(msg.decision_request)
    return {f.name: plain(getattr(obs, f.name)) for f in dataclasses.fields(obs)}


def main() -> None:
    """Write the corpus of ``--release``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", required=True, help="the release the corpus is recorded at, e.g. v0.1.0")
    release = parser.parse_args().release
    HERE.mkdir(exist_ok=True)
    for variant, mapping in VARIANTS.items():
        blobs = list(requests(Rules.from_mapping(mapping)))
        stem = f"{release}-{variant}"
        (HERE / f"{stem}.bin").write_bytes(b"".join(struct.pack(">I", len(b)) + b for b in blobs))
        readings = {"release": release, "rules": mapping, "seat": SEAT, "readings": [reading(b) for b in blobs]}
        (HERE / f"{stem}.json").write_text(json.dumps(readings, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{stem}: {len(blobs)} requests")


if __name__ == "__main__":
    main()
