"""Hand results as JSON values and as itemised text (shared by scenarios, logs and replay)."""

from __future__ import annotations

from typing import Any

from mus_core import HandEnd, HandResult, format_cards


def ended_by_text(ended_by: HandEnd | None) -> str | None:
    """How a hand ended as hand logs and results write it (``count``, ``count:pares``,
    ``deje:grande``, ``ordago:punto``...); ``None`` stays ``None`` (a game unfinished)."""
    return None if ended_by is None else str(ended_by.value)


def result_to_json(result: HandResult) -> dict[str, Any]:
    """A hand result as plain JSON values (keys documented in docs/scenarios.md)."""
    return {
        "game": result.game,
        "hand": result.hand,
        "dealer": result.dealer,
        "mano": result.mano,
        "hands": [format_cards(h) for h in result.hands],
        "declarations": {lance.name.lower(): list(v) for lance, v in result.declarations.items()},
        "lances": [
            {
                "lance": lr.lance.name.lower(),
                "outcome": lr.outcome.value,
                "stake": lr.stake,
                "bet_team": lr.bet_team,
                "deje": lr.deje,
                "winner_seat": lr.winner_seat,
                "winner_team": lr.winner_team,
                "points": lr.points,
                "stake_points": lr.stake_points,
                "value_points": lr.value_points,
                "counted": lr.counted,
            }
            for lr in result.lances
        ],
        "scores_before": list(result.scores_before),
        "scores_after": list(result.scores_after),
        "game_over": result.game_over,
        "game_winner": result.game_winner,
        "ended_by": ended_by_text(result.ended_by),
    }


def format_result(result: HandResult) -> str:
    """The itemised scoring of a hand as text, as a referee would say it aloud."""
    lines = [
        f"hand {result.hand} (game {result.game}): dealer S{result.dealer}, mano S{result.mano}",
    ]
    for seat, h in enumerate(result.hands):
        lines.append(f"  S{seat} (T{seat & 1}): {format_cards(h)}")
    lines.append(f"  scores before: T0 {result.scores_before[0]} - T1 {result.scores_before[1]}")
    for lr in result.lances:
        name = lr.lance.name.lower()
        desc = lr.outcome.value.replace("_", " ")
        if lr.outcome.value == "accepted":
            desc += f" at {lr.stake}"
        elif lr.outcome.value == "declined":
            desc += f" (stake {lr.stake}); deje {lr.deje} to T{lr.bet_team} at once"
        detail = ""
        if lr.outcome.value == "ordago":
            detail = f"S{lr.winner_seat} wins the lance: T{lr.winner_team} wins the game"
        elif not lr.counted:
            detail = "not counted (the game was already over)"
        elif lr.points:
            parts = []
            if lr.stake_points:
                parts.append(f"{lr.stake_points} {'stake' if lr.outcome.value == 'accepted' else 'en paso'}")
            if lr.value_points:
                parts.append(f"{lr.value_points} {'punto' if name == 'punto' else 'values'}")
            who = f"S{lr.winner_seat}'s hand; " if lr.winner_seat is not None else ""
            detail = f"{who}T{lr.winner_team} +{lr.points} ({' + '.join(parts)})"
        elif lr.outcome.value not in ("skipped", "not_played"):
            detail = "nothing more at the count"
        lines.append(f"  {name:<7} {desc}" + (f": {detail}" if detail else ""))
    lines.append(f"  scores after: T0 {result.scores_after[0]} - T1 {result.scores_after[1]}")
    if result.game_over:
        lines.append(f"  game over: T{result.game_winner} wins ({ended_by_text(result.ended_by)})")
    return "\n".join(lines)
