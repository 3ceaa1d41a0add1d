"""What a fault costs: one place, documented in docs/protocol.md.

On any fault (timeout, crash, malformed or illegal answer, wrong request id, an error
in the bot) the referee plays the seat's *safe default* and records the fault:

=============================  ==========================================
phase                          default action
=============================  ==========================================
mus call                       ``no-mus`` (cut the mus: nothing changes hands)
discard                        discard the seat's lowest card (one card: the least change)
betting, no bet yet            ``paso``
betting, answering a bet       ``no-quiero``
=============================  ==========================================

A seña that is not allowed is dropped (the action still counts) and recorded as a
fault. After ``max_faults`` faults by one seat its team forfeits the match.
"""

from __future__ import annotations

from mus_core import NO_MUS, NO_QUIERO, PASO, Action, Phase, discard
from mus_core.state import MusState


def default_action(state: MusState) -> Action:
    """The safe default for the seat to act (always legal)."""
    phase = state.phase
    if phase == Phase.MUS:
        return NO_MUS
    if phase == Phase.DISCARD:
        seat = state.to_act
        assert seat is not None
        return discard([min(state.hands[seat])])
    return PASO if state.bet is None else NO_QUIERO
