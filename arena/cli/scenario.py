"""``mus scenario FILE``: play one scripted hand and print its itemised scoring."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.tools import scenario as scen


def scenario(
    file: Annotated[Path, typer.Argument(help="A scenario file (TOML; see docs/scenarios.md).")],
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON (keys in docs/scenarios.md).")] = False,
) -> None:
    """Play a scripted hand through the referee and print the itemised scoring.

    A scenario fixes the rules variant, the scores, mano, every seat's cards and the
    actions in order. If it has an [expect] table, each expectation is checked: exit 1
    when one is not met. A malformed file or an illegal scripted action exits 2 with the
    line, the field, and (for an action) the seat and what was legal.
    """
    try:
        outcome = scen.play(scen.load(file))
    except scen.ScenarioError as exc:
        typer.echo(f"error: {file}: {exc}", err=True)
        raise typer.Exit(2) from None
    if json_out:
        typer.echo(scen.outcome_to_json(outcome))
    else:
        if outcome.scenario.name:
            typer.echo(outcome.scenario.name)
        typer.echo(scen.format_result(outcome.result))
        if outcome.scenario.expect:
            if outcome.mismatches:
                for m in outcome.mismatches:
                    typer.echo(f"  EXPECTATION FAILED: {m}")
            else:
                typer.echo(f"  expectations met: {', '.join(sorted(outcome.scenario.expect))}")
    if outcome.mismatches:
        raise typer.Exit(1)
