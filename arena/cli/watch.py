"""``mus watch LOG``: show a match hand by hand as it is played (a league's, or another terminal's)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import EXIT_INTERRUPTED, fail
from arena.report.watch import newest_log, watch


def watch_cmd(
    target: Annotated[Path, typer.Argument(metavar="LOG|OUT_DIR", help="A hand log being written (OUT_DIR/logs/MATCH.jsonl), or a league's or match's output folder: its match being played (the log written to last).")],
    seat: Annotated[int | None, typer.Option("--seat", help="Show only what seat S saw, as mus replay --seat.")] = None,
) -> None:
    """Follow a hand log like tail -f: each hand is shown the moment the referee logs it
    (as mus replay shows it), then the result; it ends with the match. A log that does
    not exist yet is waited for. Exit codes: 0 the match ended; 2 nothing to watch; 130
    interrupted (Ctrl-C: the match goes on).
    """
    path = target
    if target.is_dir():
        found = newest_log(target)
        if found is None:
            fail(f"{target}: no hand log in it (nor in logs/) yet")
        path = found
        typer.echo(f"watching {path}", err=True)
    try:
        watch(path, typer.echo, seat)
    except KeyboardInterrupt:
        raise typer.Exit(EXIT_INTERRUPTED) from None
