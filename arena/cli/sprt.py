"""``mus sprt NEW OLD``: is NEW better than OLD? Duplicate pairs of matches until a
sequential probability ratio test decides.

The matches are a two-entry duplicate league (``new`` and ``old``) played by the league
runner: the same secret seeds, hand logs, MAC-sealed ``results.jsonl``, folder lock,
process pool and ``--jobs``. Deal ``d`` is played twice, the teams exchanging seats
(matches ``2d`` and ``2d + 1``), and the pair is one observation of the test
(:mod:`arena.league.sprt`). The test takes the pairs in deal order, so its verdict
depends on the seed only, not on ``--jobs``. The run itself (settings, resume,
``sprt.json``/``verdict.json``, the verdict) is :class:`arena.league.sprt_run.SprtRun`;
this module parses the options and prints.

Exit codes: 0 H1 accepted (NEW is better by ``elo1``); 1 H0 accepted (NEW is not better
by ``elo1``; at best ``elo0``); 3 no verdict after ``--max-pairs`` pairs; 2 bad input,
an unusable folder, or a bot that did not start; 130 interrupted (``--resume`` continues).
"""

from __future__ import annotations

import shlex
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from arena.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    console,
    fail,
    protections_text,
    require_sandbox,
    seed_option,
    sigterm_interrupts,
    warn_given_seed,
)
from arena.cli.match import load_rules
from arena.cli.progress import match_line, print_start_failures
from arena.league.folder import seed_line
from arena.league.runner import LeagueError, run_league, start_failures
from arena.league.secret import SECRET_FILE, LeagueSecret
from arena.league.sprt_run import NEW, OLD, VERDICT_FILE, SprtError, SprtRun, fmt_elo, settings_for
from arena.remote.process import stop_all_bots
from arena.runner.match import MatchOutcome, start_failed_seats


class SprtProgress:
    """Follows the league runner's callbacks: feeds the matches to the test (stopping the
    run once it decides, or once a bot fails to start), shows a bar of the LLR between
    its bounds on a terminal, and a line per pair."""

    def __init__(self, run: SprtRun, out_console: Console, stop: threading.Event, *, enabled: bool) -> None:
        self.run = run
        self.console = out_console
        self.stop = stop
        self.enabled = enabled
        self.bar_shown = enabled and out_console.is_terminal
        self.played = 0
        self.start_failed: list[dict[str, Any]] = []
        """This run's matches in which a bot did not start (they stop the test)."""
        p = run.params
        self.bar = Progress(TextColumn("LLR {task.fields[llr]} [{task.fields[lower]}"), BarColumn(),
                            TextColumn("{task.fields[upper]}]"), TextColumn("{task.fields[status]}"),
                            TimeElapsedColumn(), console=out_console, disable=not self.bar_shown, transient=True)
        # The bar is the LLR's place between its bounds, in thousandths.
        self.task = self.bar.add_task("sprt", total=1000, completed=self._place(0.0), llr="+0.00",
                                      lower=f"{p.lower:.2f}", upper=f"{p.upper:.2f}", status="")

    @contextmanager
    def shown(self) -> Iterator[SprtProgress]:
        """The live bar while the test runs."""
        with self.bar:
            yield self

    def on_start(self, total: int, saved: list[dict[str, Any]]) -> None:
        """Resuming: the saved matches are counted first (in deal order, as always)."""
        for rec in saved:
            self._add(str(rec["match_id"]), rec["team0"], rec.get("winner_team"), bool(start_failed_seats(rec)),
                      show=False)
        if saved and self.enabled:
            self._print(Text(f"resuming: {len(saved)} matches already played; {self.run.status()}"))
        self._refresh()
        if self.run.decided:
            self.stop.set()  # decided before: nothing more to play

    def on_match(self, outcome: MatchOutcome, done: int, total: int) -> None:
        """A match finished and was saved."""
        self.played += 1
        if outcome.start_failed:
            # As results.jsonl records it (with the entry of each team), for the summary.
            seats = outcome.seating.seats
            self.start_failed.append({"team0": seats[0], "team1": seats[1], **outcome.to_json()})
            self.stop.set()  # a bot that does not start is not tested: stop, say why (exit 2)
        if self.enabled and (outcome.result.faults or outcome.start_failed):
            self._print(match_line(outcome, done, total))
        self._add(outcome.match_id, outcome.seating.seats[0], outcome.result.winner_team,
                  bool(outcome.start_failed), show=True)

    def _add(self, match_id: str, team0: str, winner: int | None, not_started: bool, *, show: bool) -> None:
        taken = self.run.add_match(match_id, team0, winner, not_started)
        for i, (deal, pair) in enumerate(taken, start=1):
            if show and self.enabled:
                what = "void (a bot did not start, or a match was aborted)" if pair is None else \
                    f"{NEW} {round(2 * pair)}-{round(2 - 2 * pair)} {OLD}"
                # The test's state after the last of the pairs this match completed.
                self._print(Text(f"pair {deal + 1}: {what}" + (f"; {self.run.status()}" if i == len(taken) else "")))
        if self.run.decided:
            self.stop.set()
        self._refresh()

    def _place(self, llr_value: float) -> int:
        p = self.run.params
        return round(1000 * (min(max(llr_value, p.lower), p.upper) - p.lower) / (p.upper - p.lower))

    def _refresh(self) -> None:
        tracker = self.run.tracker
        est = tracker.estimate()
        self.bar.update(self.task, completed=self._place(tracker.llr), llr=f"{tracker.llr:+.2f}",
                        status=f"pairs {tracker.pairs}, Elo {fmt_elo(est.elo)} "
                               f"[{fmt_elo(est.elo_low)}, {fmt_elo(est.elo_high)}], LOS {100 * est.los:.1f}%")

    def _print(self, line: Text) -> None:
        if self.bar_shown:
            self.console.print(line)
        else:
            typer.echo(line.plain)


def sprt(
    new: Annotated[str, typer.Argument(metavar="NEW", help="The candidate bot: a folder with bot.toml, a manifest, or host:port.")],
    old: Annotated[str, typer.Argument(metavar="OLD", help="The bot it must beat (as NEW).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (must not exist or be empty, unless --resume).")],
    elo0: Annotated[float | None, typer.Option("--elo0", help="H0: NEW is this many Elo better per match (default 0).")] = None,
    elo1: Annotated[float | None, typer.Option("--elo1", help="H1: NEW is this many Elo better per match (default 20).")] = None,
    alpha: Annotated[float | None, typer.Option("--alpha", help="Largest false-positive rate: accepting H1 when H0 holds (default 0.05).")] = None,
    beta: Annotated[float | None, typer.Option("--beta", help="Largest false-negative rate: accepting H0 when H1 holds (default 0.05).")] = None,
    max_pairs: Annotated[int | None, typer.Option("--max-pairs", min=1, help="Stop without a verdict after this many duplicate pairs (default 3000; exit 3).")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Matches in parallel.")] = 1,
    seed: Annotated[str | None, typer.Option(metavar="SEED", help="Seed of the deals, to reproduce a test (as mus league). Default: a random 128-bit secret, printed after the run.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the test in --out, with the settings it started with.")] = False,
    rules_file: Annotated[Path | None, typer.Option("--rules", help="TOML file with a [rules] table (docs/rules.md §12 keys).")] = None,
    games: Annotated[int | None, typer.Option(help="Games to win the match (rules.games_to_win).")] = None,
    target: Annotated[int | None, typer.Option(help="Stones to win a game (rules.target_points).")] = None,
    decision_ms: Annotated[int | None, typer.Option(min=1, help="Deadline of one decision (ms; default 2000).")] = None,
    time_bank_ms: Annotated[int | None, typer.Option(min=1, help="Time each seat may use over a match (ms; default 120000).")] = None,
    max_faults: Annotated[int | None, typer.Option(min=0, help="Faults after which a team forfeits (0 = never; default 5).")] = None,
    sandbox: Annotated[str | None, typer.Option("--sandbox", metavar="default|strict", help="How the bot processes are isolated (default: default). strict fails (exit 2) on a machine that cannot give it.")] = None,
    fresh_processes: Annotated[bool, typer.Option("--fresh-processes", help="A new process for every seat of every match.")] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show the test as it runs: a bar of the LLR between its bounds on a terminal, a line per pair (--no-progress: only the verdict).")] = True,
) -> None:
    """Is NEW better than OLD? Play duplicate pairs of matches until an SPRT decides.

    Each deal is played twice, the teams exchanging seats; the pair is one observation.
    H0: NEW is elo0 better, H1: elo1 better (logistic Elo of a match); the test stops
    when the log-likelihood ratio leaves log(beta/(1-alpha)) .. log((1-beta)/alpha).
    Writes to --out what mus league writes (results.jsonl, logs/, bots/, standings),
    sprt.json (the settings) and verdict.json. Exit codes: 0 H1 accepted (NEW is
    better); 1 H0 accepted; 3 no verdict after --max-pairs; 2 bad input or a bot that
    did not start; 130 interrupted (continue with --resume).
    """
    given_seed = seed_option(seed)
    overrides: dict[str, object] = {"games_to_win": games, "target_points": target}
    rules = load_rules(rules_file, overrides) if rules_file is not None or any(v is not None for v in overrides.values()) else None
    given = {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "max_pairs": max_pairs,
             "decision_ms": decision_ms, "time_bank_ms": time_bank_ms, "max_faults": max_faults}
    try:
        run = SprtRun(settings_for(new, old, given, rules, out, resume), sandbox=sandbox or "default")
    except SprtError as exc:
        fail(str(exc))
    protections = require_sandbox(run.sandbox)
    config = run.league(seed=given_seed, jobs=jobs, fresh_processes=fresh_processes)
    if given_seed is not None:
        warn_given_seed(given_seed)
    p = run.params
    typer.echo(f"sprt {run.specs[0].name} (new) vs {run.specs[1].name} (old): elo0 {p.elo0:g}, elo1 {p.elo1:g}, "
               f"alpha {p.alpha:g}, beta {p.beta:g}, at most {run.max_pairs} pairs; "
               f"{protections_text(protections)}", err=True)
    shown = SprtProgress(run, console(), threading.Event(), enabled=progress)
    known: list[LeagueSecret] = []

    def on_start(total: int, saved: list[dict[str, Any]]) -> None:
        if not resume:
            run.write_settings(out)  # the folder is ours now (locked, prepared)
        shown.on_start(total, saved)

    try:
        with sigterm_interrupts(), shown.shown():
            run_league(config, out, jobs=jobs, resume=resume, on_match=shown.on_match, stop=shown.stop,
                       on_secret=known.append, on_start=on_start)
    except LeagueError as exc:
        _seed(known, out, err=True)
        fail(str(exc))
    except KeyboardInterrupt:
        stop_all_bots()
        words = ["mus", "sprt", new, old, "--out", str(out), "--resume"] + (["--sandbox", sandbox] if sandbox else [])
        typer.echo(f"\ninterrupted: {run.tracker.deals_done} pairs counted, {shown.played} matches played in this run "
                   f"(matches that were running are played again); continue with: {shlex.join(words)}", err=True)
        _seed(known, out, err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    code = _report(run, out)
    _seed(known, out, err=False)
    if shown.start_failed:
        print_start_failures(start_failures(shown.start_failed), in_league=True)
        fail("a bot did not start: the test stopped (a forfeit says nothing about strength). Fix the bot "
             "(mus check BOT shows why it fails) and continue with --resume: the pairs it touched are void",
             EXIT_BAD_INPUT)
    raise typer.Exit(code)


def _report(run: SprtRun, out: Path) -> int:
    """Print the verdict, write verdict.json, return the exit code."""
    outcome = run.outcome()
    try:
        run.write_verdict(out, outcome)
    except OSError as exc:
        typer.echo(f"warning: writing {out / VERDICT_FILE} failed: {exc.strerror or exc}", err=True)
    est = run.tracker.estimate()
    typer.echo(run.status())
    typer.echo(f"{outcome.text}; Elo {fmt_elo(est.elo)} (95% interval {fmt_elo(est.elo_low)} to {fmt_elo(est.elo_high)}), "
               f"LOS {100 * est.los:.1f}%; results in {out}/")
    return outcome.code


def _seed(known: list[LeagueSecret], out: Path, *, err: bool) -> None:
    if known:
        typer.echo(seed_line(known[0].seed, out / SECRET_FILE), err=err)
