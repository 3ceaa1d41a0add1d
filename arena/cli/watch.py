"""``mus watch LOG``: show a match hand by hand as it is played (a league's, or another terminal's)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import EXIT_INTERRUPTED, fail, malformed_log
from arena.records.handlog import HandLogError
from arena.report.watch import IDLE_S, WatchError, newest_log, watch


def watch_cmd(
    target: Annotated[Path, typer.Argument(metavar="LOG|OUT_DIR", help="A hand log being written (OUT_DIR/logs/MATCH.jsonl), or a league's or match's output folder: its match being played (the log written to last).")],
    seat: Annotated[int | None, typer.Option("--seat", help="Show only what seat S saw, as mus replay --seat.")] = None,
    idle_timeout: Annotated[float, typer.Option("--idle-timeout", metavar="SECONDS", min=0, help=f"Give up (exit 2) when the log has not grown for this long; 0 waits for ever. Default {IDLE_S:g}.")] = IDLE_S,
) -> None:
    """Follow a hand log like tail -f: each hand is shown the moment the referee logs it
    (as mus replay shows it), then the result; it ends with the match. A log that stops
    growing (an empty or header-only file, a match killed before its footer) is reported
    after --idle-timeout seconds. Exit codes: 0 the match ended; 2 nothing to watch (no
    such file, a log no arena wrote, or one that stopped growing); 130 interrupted
    (Ctrl-C: the match goes on).
    """
    path = target
    if target.is_dir():
        found = newest_log(target)
        if found is None:
            fail(f"{target}: no hand log in it (nor in logs/) yet")
        path = found
        typer.echo(f"watching {path}", err=True)
    elif not target.exists():
        fail(f"{target}: no such file or folder")
    with malformed_log(path):  # the net under the checks: a value the re-play cannot use
        try:
            watch(path, typer.echo, seat, idle_s=idle_timeout or None)
        except (HandLogError, WatchError) as exc:
            fail(str(exc))
        except OSError as exc:
            fail(f"{path}: cannot read: {exc.strerror or exc}")
        except KeyboardInterrupt:
            raise typer.Exit(EXIT_INTERRUPTED) from None
