"""A hand's public events and the bet on the table, in words: one wording for the HTML
report's viewer and for a human seat at a terminal (``mus play``)."""

from __future__ import annotations

from mus_core import Event, EventKind, LiveBet


def event_text(ev: Event) -> str:
    """One public event of a hand, as a short line (``S1: envido 2``, ``grande: declined``)."""
    kind = ev.kind
    lance = ev.lance.name.lower() if ev.lance is not None else ""
    if kind is EventKind.MUS_CALL or kind is EventKind.BET:
        return f"S{ev.seat}: {ev.action}"
    if kind is EventKind.DISCARD:
        return f"S{ev.seat}: discards {ev.value} card{'s' if ev.value != 1 else ''}"
    if kind is EventKind.SIGNAL:
        return f"S{ev.seat}: seña {ev.sena.name.lower() if ev.sena is not None else '?'}"
    if kind is EventKind.REPLACEMENTS:
        return f"replacements dealt (discard round {ev.value})"
    if kind is EventKind.RESHUFFLE:
        return f"the stock ran out: {ev.value} discards shuffled in"
    if kind is EventKind.DECLARATION:
        return f"S{ev.seat}: {lance} {'yes' if ev.value else 'no'}"
    if kind is EventKind.LANCE_START:
        return f"{lance}: betting opens"
    if kind is EventKind.DEJE:
        return f"T{ev.team} gets {ev.value} at once (deje)"
    outcome = ev.outcome.value.replace("_", " ") if ev.outcome is not None else ""
    return f"{lance}: {outcome}"  # LANCE_END


STEP_EVENTS = frozenset({EventKind.MUS_CALL, EventKind.DISCARD, EventKind.BET, EventKind.SIGNAL})
"""The events that are a decision itself (its action, its seña): a log of the steps shows
them with the step."""


def bet_text(bet: LiveBet | None) -> str:
    """The bet waiting for an answer (empty when none): ``7 by S1 (T1); declined: 2``."""
    if bet is None:
        return ""
    if bet.is_ordago:
        return f"órdago by S{bet.seat} (T{bet.team})"
    return f"{bet.stake} by S{bet.seat} (T{bet.team}); declined: {bet.deje}"
