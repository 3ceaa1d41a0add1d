"""``mus check`` step 9: does the bot play a match the same in a fresh process and in one
that has played matches before?

A league keeps a bot's process for its next matches (docs/league.md), and its results
reproduce (``--resume``, ``--fresh-processes``, another ``--jobs``) only if each match's
play is a function of the match alone: a bot that carries state from one match to the
next (an opponent model, a counter, a random generator seeded once per process) plays
a match differently depending on what its process played before. The check plays its
first full match (step 6, in processes that had played no match: S0 had answered step
4's one decision) again at the end, in the same processes, and compares every decision.

A difference is a warning, not a failure: a bot may learn across matches on purpose;
then a league's results depend on which matches each process played before, and do not
reproduce under ``--resume`` or ``--fresh-processes`` (``fresh_process = true`` in its
manifest gives it a new process for every match, and reproducible play).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

TITLE = "plays a match the same in a fresh process and after other matches"


@dataclass(frozen=True)
class AgainVerdict:
    """What step 9 says."""

    ok: bool
    warning: bool
    detail: str


def decisions(hands: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Every decision of a match's hand records (as logged), without its timing: hand,
    seat, action, seña and fault kind."""
    out: list[tuple[Any, ...]] = []
    for rec in hands:
        for step in rec.get("steps", []):
            fault = step.get("fault") or {}
            out.append((rec.get("hand"), step.get("seat"), step.get("action"), step.get("sena"), fault.get("kind")))
    return out


def _text(d: tuple[Any, ...] | None) -> str:
    if d is None:
        return "nothing (the match had ended)"
    _, _, action, sena, fault = d
    return str(action) + (f" + seña {sena}" if sena else "") + (f" (fault {fault})" if fault else "")


def verdict(fresh: Sequence[dict[str, Any]], again: Sequence[dict[str, Any]], fresh_process: bool) -> AgainVerdict:
    """Compare the first play of the match (``fresh``) with the second (``again``), hand
    records as logged; ``fresh_process``: the bot's manifest asks for a process per match."""
    first, second = decisions(fresh), decisions(again)
    if first == second:
        return AgainVerdict(True, False, f"the same {len(first)} decisions both times")
    i = next((k for k, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), min(len(first), len(second)))
    where = first[i] if i < len(first) else second[i]
    what = (f"decision {i + 1} (hand {where[0]}, S{where[1]}) was {_text(first[i] if i < len(first) else None)} "
            f"in a fresh process, {_text(second[i] if i < len(second) else None)} after other matches")
    if fresh_process:
        return AgainVerdict(True, True, f"{what}; its manifest says fresh_process = true, so a league starts a new "
                                        "process for each of its matches and its play there reproduces")
    return AgainVerdict(True, True, (
        f"{what}: its play depends on what its process played before (or on the clock, or on unseeded randomness). "
        "A league keeps a bot's process across matches, so its results will not reproduce under --resume or "
        "--fresh-processes. Reset what a match must not inherit in on_match_start (docs/sdk.md), or, if it learns "
        "across matches on purpose, know that; fresh_process = true in its manifest gives it a new process per "
        "match"))
