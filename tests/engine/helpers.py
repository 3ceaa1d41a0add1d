"""Helpers shared by the engine tests: deal bare ranks, script actions."""

from __future__ import annotations

from mus_core import CARDS, Action, parse_rank
from mus_core.state import MusState


def deal(hands: list[str]) -> list[list[int]]:
    """Bare ranks ("R 3 C A") to distinct card numbers, lowest free suit first."""
    used: set[int] = set()
    out: list[list[int]] = []
    for h in hands:
        cards = []
        for tok in h.split():
            rank = parse_rank(tok)
            card = next(c for c in range(rank * 4, rank * 4 + 4) if c not in used)
            used.add(card)
            cards.append(CARDS[card])
        out.append(cards)
    return out


def script(state: MusState, actions: str) -> MusState:
    """Apply ``S1 p; S2 e2; ...`` (``;`` or newlines), checking the seat to act each time."""
    for step in (s.strip() for s in actions.replace("\n", ";").split(";")):
        if not step:
            continue
        seat_text, act = step.split(None, 1)
        assert state.to_act == int(seat_text[1:]), f"{step!r}: S{state.to_act} is to act"
        state.apply(Action.parse(act))
    return state
