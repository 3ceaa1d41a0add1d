"""``mus league CONFIG``: a round-robin league of bot processes."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from arena.cli.common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    console,
    crosstable,
    fail,
    protections_text,
    require_sandbox,
    seed_option,
    sigterm_interrupts,
    standings_table,
    warn_given_seed,
)
from arena.cli.progress import LeagueProgress, print_faults, print_start_failures, resume_command
from arena.league.breaker import GIVE_UP_AFTER
from arena.league.config import (
    ClusterConfig,
    LeagueConfig,
    LeagueConfigError,
    check_cluster_address,
    load_league,
)
from arena.league.folder import seed_line
from arena.league.runner import LeagueError, LeagueRun, run_league
from arena.league.secret import SECRET_FILE, LeagueSecret
from arena.remote.process import stop_all_bots
from arena.runtime.settings import command_line


def ray_without_address(args: Sequence[str], operand: Callable[[str], bool] = os.path.isfile) -> list[str]:
    """``args`` with an empty address given to each ``--ray`` that has none (typer has no
    option whose value is optional): ``--ray`` last, or before another option, or before
    an ``operand`` (an existing file: the league file, ``mus league --ray league.toml``).
    A word that is neither stays its address, and a bad one is refused as such."""
    out = list(args)
    i = 0
    while i < len(out):
        if out[i] == "--":
            break
        if out[i] == "--ray":
            nxt = out[i + 1] if i + 1 < len(out) else None
            if nxt is None or nxt.startswith("-") or operand(nxt):
                out.insert(i + 1, "")
            i += 1
        i += 1
    return out


class LeagueCommand(TyperCommand):
    """``mus league``, whose ``--ray`` takes an optional address."""

    # ctx: typer's vendored click Context, which typer does not export under a public name.
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, ray_without_address(args))


def cluster_address(given: str, config_address: str | None) -> str:
    """The address ``--ray`` means: its own; without one, ``$RAY_ADDRESS`` (as Ray's
    ``ray.init()``), else the league file's ``[cluster]`` address, else ``local``."""
    if given:
        return given
    return os.environ.get("RAY_ADDRESS") or config_address or "local"


def league(
    config_file: Annotated[Path, typer.Argument(metavar="CONFIG", help="League file (TOML; see docs/league.md).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (must not exist, unless --resume).")],
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Matches in parallel, each refereed in a worker process of its own when more than one (default: the file's jobs, else the CPUs this process may use; see docs/league.md).")] = None,
    seed: Annotated[str | None, typer.Option(metavar="SEED", help="The league seed, to reproduce a league: a non-negative integer below 2**256, decimal or 0x-hex (replaces the file's seed). Default: the file's seed, else a random 128-bit secret, printed after the run. A chosen seed can be guessed: not for competitions.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted league in --out.")] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show progress: on a terminal a bar (matches done/total, elapsed, ETA, leaders) and a line per finished match; otherwise a plain line per match. --no-progress: only the standings at the end.")] = True,
    # retired (REMOVED_IN): --affinity, --bot-cpus, --spin-us (arena.common.deprecation).
    affinity: Annotated[str | None, typer.Option("--affinity", hidden=True, help="Deprecated, ignored.")] = None,
    bot_cpus: Annotated[str | None, typer.Option("--bot-cpus", hidden=True, help="Deprecated, ignored.")] = None,
    spin_us: Annotated[int | None, typer.Option("--spin-us", hidden=True, help="Deprecated.")] = None,
    fresh_processes: Annotated[bool, typer.Option("--fresh-processes", help="A new process for every seat of every match (default: each job keeps a bot's process for its next matches of the same entry, never a deal twice; docs/league.md).")] = False,
    sandbox: Annotated[str | None, typer.Option("--sandbox", metavar="default|strict", help="How the bot processes are isolated (default: the file's [sandbox] mode, else default). strict fails (exit 2) on a machine that cannot give it. See docs/league.md.")] = None,
    ray: Annotated[str | None, typer.Option("--ray", metavar="ADDRESS", help="Play the matches on a Ray cluster. ADDRESS (optional): local (this machine's Ray instance, started if none runs), auto (the cluster this machine is a node of), host:port (a head node) or ray://host:port (Ray Client); without one, $RAY_ADDRESS, else the file's [cluster] address, else local. Replaces the file's [cluster] address; a file with a [cluster] table runs on Ray without it. Needs pip install 'mus-arena[ray]'. See docs/cluster.md.")] = None,
) -> None:
    """Run a round-robin league: every pair of entries, seats swapped, optionally duplicate deals.

    Writes to --out: results.jsonl (one line per match, saved as each match ends),
    logs/<match>.jsonl (hand logs), bots/ (bot stdout/stderr), standings.json and
    standings.csv. Ctrl-C stops cleanly; continue with --resume. An entry whose bot
    fails to start forfeits the match; each is listed at the end with its first error.
    Exit codes: 0 done; 1 done, but an entry never started (in any of its matches), or
    a match could not be played (a defect of the arena; --resume plays it again); 2 bad
    league file or output folder; 130 interrupted.
    """
    given = seed_option(seed)
    try:
        poll_us = command_line(affinity, bot_cpus, spin_us)
    except ValueError as exc:
        fail(str(exc))
    config, address = _league_config(config_file, poll_us, sandbox, given, fresh_processes, ray)
    protections = require_sandbox(config.sandbox)  # before anything is written or started
    if config.seed is not None:
        warn_given_seed(config.seed)
    if config.cluster is not None and config.sandbox != "strict":
        # Ray's ports are unauthenticated: a bot with the network can reach them from its
        # worker, and through them other tasks' arguments (their match seeds).
        typer.echo("warning: on a cluster the default sandbox lets a bot reach Ray's ports, and through them other "
                   "matches' seeds; run competitions with --sandbox strict (docs/cluster.md)", err=True)
    # What reuse means for reproducibility, said where the run starts (docs/league.md).
    processes = ("a process per match" if config.fresh_processes else
                 "processes kept across matches: results reproduce for bots that play a match the same after "
                 "others (mus check step 9)")
    typer.echo(f"league {config.name}: {len(config.entries)} entries; {processes}; {protections_text(protections)}",
               err=True)
    known: list[LeagueSecret] = []
    out_console = console()
    shown = LeagueProgress(config.name, out_console, enabled=progress)
    resume_words = resume_command(config_file, out, sandbox, address)
    try:
        with sigterm_interrupts(), shown.shown():
            run = run_league(config, out, jobs=jobs, resume=resume, on_match=shown.on_match, stop=threading.Event(),
                             on_secret=known.append, on_start=shown.on_start, on_cluster=shown.on_cluster)
    except LeagueError as exc:
        _print_seed(known, out, err=True)
        fail(str(exc))
    except KeyboardInterrupt:
        stop_all_bots()
        # "\n": after the terminal's "^C".
        typer.echo("\n" + shown.interrupted_line(out, resume_words), err=True)
        if (out / "standings.json").is_file() and shown.done:
            typer.echo(f"standings of the {shown.done} matches saved so far: {out / 'standings.json'} "
                       f"(marked incomplete; mus report {out} shows them)", err=True)
        _print_seed(known, out, err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    out_console.print(standings_table(run.standings, f"League {config.name}: {len(run.results)} matches"))
    out_console.print(crosstable(run.standings))
    typer.echo(f"played now: {run.played_now}; results, logs and standings in {out}/")
    _print_seed(known, out, err=False)
    order = {e.name: i for i, e in enumerate(config.entries)}
    failures = sorted(run.start_failures, key=lambda f: order.get(f.entry, len(order)))  # the league file's order
    print_start_failures(failures, in_league=True)
    print_faults(run.results, out, [e.name for e in config.entries])
    _fail_for_failed(run, resume_words)
    _fail_for_start_failures(run, [f.entry for f in failures if f.never_started], order, resume_words)


def _league_config(config_file: Path, poll_us: int | None, sandbox: str | None, seed: int | None,
                   fresh_processes: bool, ray: str | None) -> tuple[LeagueConfig, str | None]:
    """The league file as the options change it (``--seed``, ``--fresh-processes``,
    ``--ray``), and the cluster address ``--ray`` chose (None without it); a bad file or
    address, or a cluster without Ray installed, exits 2."""
    try:
        config = load_league(config_file, poll_us=poll_us, sandbox=sandbox)
    except LeagueConfigError as exc:
        fail(str(exc))
    if seed is not None:
        config = replace(config, seed=seed)
    if fresh_processes:
        config = replace(config, fresh_processes=True)
    address = None  # the cluster the resume command names: the one --ray chose
    if ray is not None:
        address = cluster_address(ray, config.cluster.address if config.cluster else None)
        try:
            check_cluster_address(address)
        except ValueError as exc:
            fail(f"--ray: {exc}" if ray else f"--ray (from $RAY_ADDRESS): {exc}")
        config = replace(config, cluster=replace(config.cluster or ClusterConfig(), address=address))
    if config.cluster is not None:
        from arena.league.cluster import RAY_MISSING, ray_available

        if not ray_available():
            fail(RAY_MISSING)
    return config, address


def _fail_for_failed(run: LeagueRun, resume: str) -> None:
    """Exit 1 when matches could not be played by a defect of the arena (``resume`` plays them)."""
    if not run.failed:
        return
    first_id, first_error = run.failed[0]
    ids = ", ".join(match_id for match_id, _ in run.failed)
    them = "them" if len(run.failed) > 1 else "it"
    fail(f"{len(run.failed)} match{'es' if len(run.failed) > 1 else ''} could not be played, by a defect of the "
         f"arena, not of a bot ({ids}; {first_id}: {first_error}); the standings above leave "
         f"{them} out. Please report it, with the league.match_failed log line; play "
         f"{them} again with: {resume}", EXIT_FAILURE)


def _fail_for_start_failures(run: LeagueRun, never: list[str], order: dict[str, int], resume: str) -> None:
    """Exit 1 when the standings are those of forfeits, not of play: matches not tried
    (an entry given up after start failures in a row: ``resume`` plays them), or an entry
    that never started (``never``)."""
    if run.not_tried:
        given_up = sorted({r["seating"][s] for r in run.not_tried for s in r["start_failed"]},
                          key=lambda e: order.get(e, len(order)))
        n = len(run.not_tried)
        fail(f"{', '.join(given_up)} did not start in {GIVE_UP_AFTER} matches in a row: "
             f"{'its' if len(given_up) == 1 else 'their'} {n} other match{'es were' if n > 1 else ' was'} not tried "
             f"in this run; the standings count {'them' if n > 1 else 'it'} as start failures, but they are not "
             f"saved: fix the bot (mus check BOT shows why it fails) and play them with: {resume}", EXIT_FAILURE)
    if never:
        fail(f"{', '.join(never)} never started: {'its' if len(never) == 1 else 'their'} teams forfeited every match; "
             "the standings count those forfeits. Fix the bot (mus check BOT shows why it fails) and run the "
             "league again in a new folder", EXIT_FAILURE)

def _print_seed(known: list[LeagueSecret], out: Path, *, err: bool) -> None:
    """The seed line, once the league has one (not when it stopped before: a refused
    resume, a folder in use); after the run only, so that no bot sees it while playing."""
    if known:
        typer.echo(seed_line(known[0].seed, out / SECRET_FILE), err=err)
