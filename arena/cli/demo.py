"""``mus demo``: full games between in-process random players."""

from __future__ import annotations

import random
from typing import Annotated

import typer
from mus_core import Rules
from mus_core.random_play import random_action
from mus_core.state import MusState

from arena.tools.scenario import format_result


def demo(
    seed: Annotated[int, typer.Option(help="Seed of the deals and of the random players.")] = 1,
    matches: Annotated[int, typer.Option(min=1, help="Matches to play.")] = 3,
) -> None:
    """Play a few matches between random players; print each result and the last hand."""
    rng = random.Random(seed)
    state = None
    for m in range(matches):
        state = MusState.new(Rules(), seed=seed + m)
        while not state.is_terminal:
            state.apply(random_action(rng, state.legal_actions()))
        games = [sum(1 for h in state.hand_results if h.game_over and h.game_winner == t) for t in (0, 1)]
        typer.echo(
            f"match {m} (seed {seed + m}): team {state.match_winner} wins, games {games[0]}-{games[1]}, "
            f"{len(state.hand_results)} hands"
        )
    assert state is not None
    typer.echo("\nlast hand, itemised:")
    typer.echo(format_result(state.hand_results[-1]))
