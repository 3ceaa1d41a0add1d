"""What ``mus league`` shows while it runs, and the start-failure summary of ``mus league``
and ``mus match``.

On a terminal: a progress bar (matches done/total, elapsed, ETA, the current leaders)
with a line per finished match printed above it (entries, winner, reason; faults in
yellow, a bot that did not start in red). Otherwise (stdout a file or a pipe): a plain
line per finished match, no bar, no colour.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from arena.league.executor import ClusterStatus
from arena.league.runner import StartFailure
from arena.records.handlog import HandLogError, iter_records
from arena.remote.untrusted import printable
from arena.runner.match import MatchOutcome, seat_start_errors


def _clock(seconds: float) -> str:
    s = max(0, round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class _EtaColumn(ProgressColumn):
    """Time left, from this run's own pace: the matches it played over the time it took.

    rich's TimeRemainingColumn takes the speed of the last 30 s of updates: with
    matches longer than that it shows nothing, and after ``--resume`` the matches
    saved before would count as if played in no time.
    """

    def render(self, task: Task) -> Text:
        played: int = task.fields.get("played", 0)
        started: float = task.fields.get("started", 0.0)
        last: float = task.fields.get("last", 0.0)
        left = (task.total or 0) - task.completed
        if task.total is not None and left <= 0:
            return Text("ETA 0:00:00", style="progress.remaining")
        if played == 0:
            return Text("ETA –", style="progress.remaining")
        per_match = (last - started) / played
        # Counted down from the last finished match, so the figure moves between matches.
        return Text(f"ETA {_clock(left * per_match - (time.monotonic() - last))}", style="progress.remaining")


class LeagueProgress:
    """Receives the runner's callbacks (``on_start``, ``on_match``) and shows the league's
    progress on ``console`` (stdout)."""

    def __init__(self, name: str, console: Console, *, enabled: bool = True) -> None:
        self.name = name
        self.console = console
        self.enabled = enabled
        self.bar_shown = enabled and console.is_terminal
        """A live bar on a terminal; plain lines otherwise."""
        self.total: int | None = None
        self.done = 0
        """Matches saved, resumed ones included."""
        self.played = 0
        """Matches played (and saved) in this run."""
        self.record: dict[str, list[int]] = {}
        """Each entry's [wins, losses] so far."""
        self.nodes: int | None = None
        """A cluster's nodes alive when last told (None: a local league)."""
        self.bar = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            _EtaColumn(), TextColumn("{task.fields[cluster]}"), TextColumn("{task.fields[leaders]}"),
            console=console, disable=not self.bar_shown, transient=True,
        )
        # Hidden until the schedule is known (on_start), so the bar never shows "0/?".
        self.task = self.bar.add_task(f"league {name}", total=None, visible=False, leaders="", played=0,
                                      started=time.monotonic(), last=0.0, cluster="")

    @contextmanager
    def shown(self) -> Iterator[LeagueProgress]:
        """The live bar, while the league runs (nothing when there is no bar)."""
        with self.bar:
            yield self

    def on_start(self, total: int, saved: list[dict[str, Any]]) -> None:
        """The schedule is known: ``total`` matches, ``saved`` already in results.jsonl."""
        self.total = total
        self.done = len(saved)
        for rec in saved:
            self._count(rec["team0"], rec["team1"], rec.get("winner_team"))
        self.bar.update(self.task, total=total, completed=self.done, started=time.monotonic(),
                        leaders=self._leaders(), visible=True)
        if self.enabled and saved:
            self._print(Text(f"resuming: {len(saved)} of {total} matches already played"))

    def on_match(self, outcome: MatchOutcome, done: int, total: int) -> None:
        """A match finished and was saved."""
        self.done, self.total = done, total
        self.played += 1
        teams = (outcome.seating.seats[0], outcome.seating.seats[1])
        self._count(*teams, outcome.result.winner_team)
        self.bar.update(self.task, completed=done, total=total, played=self.played, last=time.monotonic(),
                        leaders=self._leaders())
        if self.enabled:
            self._print(match_line(outcome, done, total))

    def on_cluster(self, status: ClusterStatus) -> None:
        """A cluster's state: its nodes and matches in flight in the bar; without a bar,
        a line each time the number of nodes changes."""
        text = (f"{status.nodes} {'node' if status.nodes == 1 else 'nodes'}, "
                f"{status.running} in flight")
        self.bar.update(self.task, cluster=text)
        if self.enabled and not self.bar_shown and status.nodes != self.nodes:
            self._print(Text(f"cluster: {status.nodes} {'node' if status.nodes == 1 else 'nodes'} "
                             f"({status.cpus:g} CPUs, {status.capacity} {'match' if status.capacity == 1 else 'matches'} at once)"))
        self.nodes = status.nodes

    def _count(self, team0: str, team1: str, winner: int | None) -> None:
        for side, entry in enumerate((team0, team1)):
            wl = self.record.setdefault(entry, [0, 0])
            if winner is not None:
                wl[0 if winner == side else 1] += 1

    def _leaders(self) -> str:
        """The entries with the best wins − losses so far (match results, not ratings)."""
        if not self.record or all(w == lo == 0 for w, lo in self.record.values()):
            return ""
        best = max(w - lo for w, lo in self.record.values())
        top = sorted(e for e, (w, lo) in self.record.items() if w - lo == best)
        shown = ", ".join(f"{e} {self.record[e][0]}-{self.record[e][1]}" for e in top[:3])
        more = f" +{len(top) - 3}" if len(top) > 3 else ""
        return f"{'leader' if len(top) == 1 else 'leaders'}: {shown}{more}"

    def _print(self, line: Text) -> None:
        if self.bar_shown:
            self.console.print(line)  # above the live bar
        else:
            typer.echo(line.plain)  # one plain line, whatever the width

    def interrupted_line(self, out: Path, resume_command: str) -> str:
        """The line printed on Ctrl-C (or SIGTERM)."""
        total = "?" if self.total is None else str(self.total)
        return (f"interrupted: {self.done} of {total} matches finished and saved in {out} ({self.played} in this run; "
                f"matches that were running are played again from their start); continue with: {resume_command}")


def resume_command(config_file: Path, out: Path, sandbox: str | None, ray: str | None = None) -> str:
    """The command that continues an interrupted league (a resume must keep the sandbox;
    it keeps the cluster it was run on)."""
    words = ["mus", "league", str(config_file), "--out", str(out), "--resume"]
    if sandbox is not None:
        words += ["--sandbox", sandbox]
    if ray is not None:
        words += ["--ray", ray]
    return shlex.join(words)


def match_line(outcome: MatchOutcome, done: int, total: int) -> Text:
    """One line for a finished match: its number, entries, winner, reason and hands; its
    faults (yellow) and any bot that did not start (red)."""
    res = outcome.result
    seats = outcome.seating.seats
    teams = (seats[0], seats[1])
    width = len(str(total))
    line = Text(f"{done:>{width}}/{total} {teams[0]} vs {teams[1]}: ")
    if res.winner_team is None:
        line.append("no winner", style="bold")
    else:
        line.append(f"{teams[res.winner_team]} wins", style="bold")
    if res.hands:
        line.append(f" {res.games_won[0]}-{res.games_won[1]}")
    line.append(f" ({res.reason.value}, {res.hands} hands)")
    kinds: dict[str, dict[str, int]] = {}
    for f in res.faults:
        per_entry = kinds.setdefault(seats[f.seat], {})
        per_entry[f.kind.value] = per_entry.get(f.kind.value, 0) + 1
    for entry, counts in kinds.items():
        what = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
        line.append(f"; faults {entry}: {what}", style="yellow")
    errors = seat_start_errors(outcome.to_json())
    for entry in dict.fromkeys(seats[s] for s in outcome.start_failed):
        first = next(errors[s] for s in outcome.start_failed if seats[s] == entry and s in errors)
        line.append(f"; {entry} did not start: {_first_clause(first)}", style="bold red")
    return line


def _first_clause(error: str) -> str:
    """What went wrong, without the stderr excerpt that follows it (the summary at the
    end quotes it): ``bot x exited with code 1 before announcing its address``."""
    first = error.splitlines()[0] if error else "?"
    return first.split("; its stderr", 1)[0].rstrip(":")


def match_start_failures(outcome: MatchOutcome) -> list[StartFailure]:
    """The start failures of one match, per entry (``mus match``: one entry per bot name)."""
    errors = seat_start_errors(outcome.to_json())
    seats = outcome.seating.seats
    found: dict[str, StartFailure] = {}
    for s in outcome.start_failed:
        found.setdefault(seats[s], StartFailure(seats[s], 1, 1, outcome.match_id, errors.get(s, outcome.start_error)))
    return list(found.values())


def print_start_failures(failures: Sequence[StartFailure], *, in_league: bool) -> None:
    """The summary at the end of a run: each entry that failed to start, how often, and
    its first error (exit code, the first and last lines of its stderr, its log file).
    On stderr, as the errors are."""
    if not failures:
        return
    lines = [f"start failures: {len(failures)} {'entry' if len(failures) == 1 else 'entries'} did not start "
             "(a team whose bot does not start forfeits the match):"]
    for f in failures:
        if in_league:
            how = ("never started" if f.never_started else "did not start") + f" in {f.failed} of {f.matches} matches"
            lines.append(f"  {f.entry}: {how}; first in {f.match_id}:")
        else:
            lines.append(f"  {f.entry}:")
        lines += ["    " + line for line in f.error.splitlines()]
    typer.echo("\n".join(lines), err=True)


def _stderr_log(out: Path, rec: dict[str, Any], seat: int) -> Path | None:
    """The stderr log of the process that played ``seat`` in the match of ``rec``: a
    league keeps processes across matches, and a log is named after the seat its process
    was started for, which the hand log's header gives (``process.first_seat``). None
    for a bot at an address (no process here) or a log that cannot be read."""
    try:
        header = next(r for _, r, _ in iter_records(out / "logs" / str(rec.get("log"))) if r is not None)
        first = header["seats"][seat]["process"]["first_seat"]
    except (HandLogError, StopIteration, LookupError, TypeError):
        return None
    path = out / "bots" / f"{first}.stderr.log"
    return path if path.is_file() else None


def print_faults(results: Sequence[dict[str, Any]], out: Path, order: Sequence[str]) -> None:
    """The summary at the end of a league: each entry whose bots faulted, how often of
    each kind, and the first fault of each kind (match, seat, hand, what the bot did or
    said, and its stderr log), so that an organiser sees why without opening the logs.
    On stderr, as the errors are. Entries in ``order`` (the league file's)."""
    by_entry: dict[str, dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]] = {}
    for rec in results:
        seating = rec.get("seating") or []
        for fault in rec.get("faults") or []:
            seat = fault.get("seat")
            if not isinstance(seat, int) or not 0 <= seat < len(seating):
                continue
            by_entry.setdefault(str(seating[seat]), {}).setdefault(str(fault.get("kind")), []).append((rec, fault))
    if not by_entry:
        return
    rank = {name: i for i, name in enumerate(order)}
    lines = [f"faults: {len(by_entry)} {'entry' if len(by_entry) == 1 else 'entries'} faulted "
             "(each fault is in its match's hand log: mus replay LOG shows it in its hand):"]
    for entry in sorted(by_entry, key=lambda e: rank.get(e, len(rank))):
        kinds = sorted(by_entry[entry].items(), key=lambda kv: -len(kv[1]))  # the most frequent first
        counts = ", ".join(f"{kind} {len(found)}" for kind, found in kinds)
        lines.append(f"  {entry}: {sum(len(found) for _, found in kinds)} ({counts}); the first of each kind:")
        for kind, found in kinds:
            rec, fault = found[0]
            seat = fault["seat"]
            detail = [printable(x, 200) for x in str(fault.get("detail") or "").splitlines()[:4]]
            lines.append(f"    {kind} in {rec.get('match_id')}, S{seat}, hand {fault.get('hand')}: "
                         f"{detail[0] if detail else ''}")
            lines += [f"      {x}" for x in detail[1:]]
            log = _stderr_log(out, rec, seat)
            if log is not None:
                lines.append(f"      its stderr: {log}")
    typer.echo("\n".join(lines), err=True)
