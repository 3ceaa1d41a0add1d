"""``mus league CONFIG``: a round-robin league of bot processes."""

from __future__ import annotations

import signal
import threading
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from arena.cli.common import EXIT_INTERRUPTED, console, crosstable, fail, standings_table
from arena.league.config import LeagueConfigError, load_league
from arena.league.runner import LeagueError, run_league
from arena.referee.eventloop import DEFAULT_SPIN_US, MAX_SPIN_US
from arena.remote.placement import BotCpus, PlacementError
from arena.remote.process import stop_all_bots


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM stops a league like Ctrl-C: finished matches are kept, bots are stopped."""
    raise KeyboardInterrupt


def league(
    config_file: Annotated[Path, typer.Argument(metavar="CONFIG", help="League file (TOML; see docs/league.md).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (must not exist, unless --resume).")],
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Matches in parallel (default: the file's jobs).")] = None,
    seed: Annotated[int | None, typer.Option(help="Override the league seed (the same seed reproduces the league).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted league in --out.")] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar.")] = True,
    bot_cpus: Annotated[str | None, typer.Option("--bot-cpus", metavar="declared|any|auto|CPUS", help="Where bots run: declared (auto if the bots of every entry say share_cpu = true in their manifests, else any), any (the system decides), auto (each match's bots share one CPU, its referee another; parallel matches get CPUs of their own while there are enough) or a CPU list such as 2-3 (default: the file's bot_cpus, else declared). See docs/performance.md.")] = None,
    spin_us: Annotated[int | None, typer.Option("--spin-us", min=0, max=MAX_SPIN_US, help=f"How long a referee polls for an answer before it sleeps, in microseconds (0: never; default: the file's spin_us, else {DEFAULT_SPIN_US}). Only while one match runs at a time. See docs/performance.md.")] = None,
) -> None:
    """Run a round-robin league: every pair of entries, seats swapped, optionally duplicate deals.

    Writes to --out: results.jsonl (one line per match, saved as each match ends),
    logs/<match>.jsonl (hand logs), bots/ (bot stdout/stderr), standings.json and
    standings.csv. Ctrl-C stops cleanly; continue with --resume.
    Exit codes: 0 done; 2 bad league file or output folder; 130 interrupted.
    """
    placement = None
    if bot_cpus is not None:
        try:
            placement = BotCpus.parse(bot_cpus)
        except PlacementError as exc:
            fail(f"--bot-cpus: {exc}")
    try:
        config = load_league(config_file, bot_cpus=placement, spin_us=spin_us)
    except LeagueConfigError as exc:
        fail(str(exc))
    if seed is not None:
        config = replace(config, seed=seed)
    stop = threading.Event()
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("ETA"), TimeRemainingColumn(), disable=not progress, transient=True)
    task = bar.add_task(f"league {config.name}", total=None)

    def on_match(outcome, done: int, total: int) -> None:  # type: ignore[no-untyped-def]
        bar.update(task, completed=done, total=total)

    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        with bar:
            run = run_league(config, out, jobs=jobs, resume=resume, on_match=on_match, stop=stop)
    except LeagueError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        stop_all_bots()
        typer.echo(f"\ninterrupted: finished matches are saved in {out}; continue with --resume", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    out_console = console()
    out_console.print(standings_table(run.standings, f"League {config.name}: {len(run.results)} matches"))
    out_console.print(crosstable(run.standings))
    typer.echo(f"played now: {run.played_now}; results, logs and standings in {out}/")
