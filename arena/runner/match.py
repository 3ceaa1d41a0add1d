"""Run one match between bot specs: start the processes, referee, log every hand, stop them.

Shared by ``mus match`` and the league runner, so a league adds nothing per match that
``mus match`` does not do too. A league passes a :class:`~arena.runner.pool.ProcessPool`:
the match then takes its processes from it and gives back those that played cleanly.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog
from mus_core import MatchEndReason

from arena.driver.match import MatchConfig, MatchResult, play_match_async
from arena.records.handlog import HandLogWriter, match_header
from arena.referee.player import FaultRecord, Player
from arena.remote.client import RemoteBot, close_bots
from arena.remote.manifest import BotManifest, BotSpec
from arena.remote.process import BotStartError
from arena.remote.sandbox import protections as sandbox_protections
from arena.runner.pool import Lease, ProcessPool, fresh_header
from arena.runtime.settings import Runtime

log = structlog.get_logger()


@dataclass(frozen=True)
class Seating:
    """Which entry sits where: ``seats[s]`` is the entry name of seat ``s``."""

    seats: tuple[str, ...]

    @property
    def teams(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Entry names of team 0 (even seats) and team 1 (odd seats)."""
        return tuple(self.seats[0::2]), tuple(self.seats[1::2])


@dataclass
class MatchOutcome:
    """A finished match as the league records it."""

    match_id: str
    seating: Seating
    result: MatchResult
    log_path: Path
    start_error: str = ""
    """Each seat whose bot failed to start, as ``S<seat>: <error>`` lines (the error
    quotes the bot's exit code and the first and last lines of its stderr)."""
    start_failed: tuple[int, ...] = ()
    """The seats whose bot failed to start."""
    stderr_logs: tuple[Path | None, ...] = ()
    """Per seat, the file its bot process's stderr went to (None: a bot at an address;
    empty: in-process players). The console names it for a seat that faulted."""

    def to_json(self) -> dict[str, Any]:
        """As plain JSON values (one line of results.jsonl)."""
        return {
            "match_id": self.match_id,
            "seating": list(self.seating.seats),
            "log": self.log_path.name,
            "start_error": self.start_error,
            "start_failed": list(self.start_failed),
            **self.result.to_json(),
        }


_SEAT_PREFIX = re.compile(r"^S(\d+): ", re.MULTILINE)


def seat_start_errors(record: dict[str, Any]) -> dict[int, str]:
    """The start error of each seat whose bot failed to start, from a result record
    (a line of results.jsonl, or :meth:`MatchOutcome.to_json`): ``start_error``'s
    ``S<seat>: `` lines, the continuation lines of each (its stderr excerpt) included.
    Records written before ``start_failed`` existed are read the same way."""
    text = record.get("start_error") or ""
    marks = list(_SEAT_PREFIX.finditer(text))
    return {int(m.group(1)): text[m.end():(marks[i + 1].start() if i + 1 < len(marks) else len(text))].strip()
            for i, m in enumerate(marks)}


def start_failed_seats(record: dict[str, Any]) -> list[int]:
    """The seats whose bot failed to start in a result record (``start_failed``, or for
    an older record the seats named in ``start_error``)."""
    seats = record.get("start_failed")
    if isinstance(seats, list):
        return [int(s) for s in seats]
    return sorted(seat_start_errors(record))


class OutFolderError(Exception):
    """A match's output folder that cannot be used; the message is one line for the user."""


def prepare_match_folder(out_dir: Path, match_id: str) -> Path:
    """Make ``out_dir`` ready for one match and return its hand log's path
    (``<match_id>.jsonl``): a folder this creates is private (0700), because the log and
    the secret next to it hold the seed and bots may run as another user; a log of that
    name already there is never overwritten.

    Raises:
        OutFolderError: the folder cannot be created, or the log exists.
    """
    try:
        created = not out_dir.exists()
        out_dir.mkdir(parents=True, exist_ok=True)
        if created:
            out_dir.chmod(0o700)
    except OSError as exc:
        raise OutFolderError(f"{out_dir}: cannot create: {exc.strerror or exc}") from None
    log_path = out_dir / f"{match_id}.jsonl"
    if log_path.exists():
        raise OutFolderError(f"{log_path} exists; choose another --out or --match-id")
    return log_path


def run_match(
    specs: Sequence[BotSpec],
    seating: Seating,
    config: MatchConfig,
    out_dir: Path,
    *,
    bot_log_dir: Path | None = None,
    on_fault: Callable[[FaultRecord], None] | None = None,
    start_timeout_s: float = 10.0,
    players: Sequence[Player] | None = None,
    runtime: Runtime | None = None,
    sandbox: str = "default",
    pool: ProcessPool | None = None,
) -> MatchOutcome:
    """Start one process per seat, play the match, write ``<match_id>.jsonl``, stop every process.

    A bot that fails to start loses the match by forfeit (its team), with the error
    recorded; if both teams fail the match is aborted. ``players`` replaces the
    processes (in-process tests). ``runtime``: how the match is run for speed
    (:class:`~arena.runtime.settings.Runtime`), recorded as the header's ``run``.
    ``sandbox``: the isolation profile of the bot
    processes, ``"default"`` or ``"strict"`` (:mod:`arena.remote.sandbox`).
    ``pool``: where the processes come from and go back to (:mod:`arena.runner.pool`;
    its sandbox is then the pool's); a bot whose manifest says ``fresh_process = true``
    still gets a process of its own, stopped after the match. None: every process is
    started for the match and stopped after it.
    """
    runtime = runtime or Runtime()
    if pool is not None:
        sandbox = pool.sandbox  # the pool's processes run under its profile: the header says that one
    log_path = out_dir / f"{config.match_id}.jsonl"
    with contextlib.ExitStack() as stack:
        if players is None:
            seats = _Seats(config, seating, runtime, sandbox, pool, stack)
            seats.start(specs, bot_log_dir or (out_dir / "bots"), start_timeout_s)
            seat_players: Sequence[Player] = seats.bots
        else:
            seats, seat_players = None, players
        spawned = players is None and any(isinstance(spec, BotManifest) for spec in specs)
        header = _header(config, seating, seat_players, seats.processes if seats else None, runtime, sandbox, spawned)
        writer = stack.enter_context(HandLogWriter(log_path, header))
        start_errors = seats.start_errors if seats else {}
        start_error = "\n".join(f"S{seat}: {error}" for seat, error in sorted(start_errors.items()))
        if start_errors:
            result = not_started_result(config, start_errors, start_error)
        else:
            result = _referee(seat_players, config, runtime, writer, on_fault)
        writer.close({"result": result.to_json()})
        if seats is not None:
            seats.judge(result)
    stderr_logs = tuple(b.process.stderr_log if b.process is not None else None for b in seats.bots) if seats else ()
    return MatchOutcome(config.match_id, seating, result, log_path, start_error, tuple(sorted(start_errors)),
                        stderr_logs)


def _referee(players: Sequence[Player], config: MatchConfig, runtime: Runtime, writer: HandLogWriter,
             on_fault: Callable[[FaultRecord], None] | None) -> MatchResult:
    """Play the match on this thread's event loop, each hand logged as it ends."""

    def notify_failed(method: str, seat: int, exc: BaseException) -> None:
        log.warning("bot.notify_failed", match_id=config.match_id, seat=seat, method=method, error=str(exc))

    with runtime.refereeing() as loop:
        return loop.run_until_complete(play_match_async(
            players, config, on_hand=writer.hand, on_fault=on_fault, on_notify_error=notify_failed))


class _Seats:
    """The bots of one match's seats: processes started for it or leased from a pool,
    started together, each given back (or stopped) when the match's stack closes."""

    def __init__(self, config: MatchConfig, seating: Seating, runtime: Runtime, sandbox: str,
                 pool: ProcessPool | None, stack: contextlib.ExitStack) -> None:
        self.config, self.seating, self.runtime, self.sandbox, self.pool, self.stack = (
            config, seating, runtime, sandbox, pool, stack)
        self.bots: list[RemoteBot] = []
        self.leases: dict[int, Lease] = {}  # seat -> its pooled process
        self.processes: list[dict[str, Any] | None] = []  # seat -> how its process was obtained (the log's header)
        self.verdicts: dict[int, str | None] = {}  # seat -> why its pooled process must not play again (None: it may)
        self.start_errors: dict[int, str] = {}  # seat -> its BotStartError
        self.fresh: list[RemoteBot] = []  # processes started for this match alone

    def start(self, specs: Sequence[BotSpec], bot_logs: Path, start_timeout_s: float) -> None:
        """Get a bot per seat and connect them all (every process starts at once)."""
        self.stack.callback(self._finish)
        for seat, spec in enumerate(specs):
            label = f"{self.config.match_id}.s{seat}"
            if self.pool is not None and isinstance(spec, BotManifest) and not spec.fresh_process:
                lease = self.leases[seat] = self.pool.acquire(self.seating.seats[seat], spec, self.config.seed,
                                                              label)
                bot = lease.bot
                self.processes.append(lease.header())
            else:
                bot = RemoteBot(spec, bot_logs, label, start_timeout_s=start_timeout_s,
                                sandbox=self.sandbox)
                self.fresh.append(bot)
                why = ("fresh_process in its manifest" if isinstance(spec, BotManifest) and self.pool is not None
                       else "a process per match" if isinstance(spec, BotManifest) else "a bot at an address")
                self.processes.append(fresh_header(why, label))
            self.bots.append(bot)
            if bot.info is None:  # not a process kept from an earlier match
                try:
                    bot.launch()  # all processes start together; connect() below waits for each
                except BotStartError:
                    pass  # reported by connect()
        for seat, bot in enumerate(self.bots):
            if bot.info is not None:
                continue
            try:
                bot.connect()
            except BotStartError as exc:
                self.start_errors[seat] = str(exc)
        _log_start_failures(self.config.match_id, specs, self.seating, self.start_errors)

    def _finish(self) -> None:
        """When the match is over (or failed): the pooled processes given back (an
        exception leaves no verdict: stopped), and those to stop stopped with the
        match's other processes, all at once."""
        if self.pool is not None and self.leases:
            self.pool.release_all([(lease, self.verdicts.get(seat, "the match did not finish"))
                                   for seat, lease in self.leases.items()], also=self.fresh)
        else:
            close_bots(self.fresh)  # failures are logged there

    def judge(self, result: MatchResult) -> None:
        """Whether each pooled process may play again, from how its match went."""
        for seat, lease in self.leases.items():
            self.verdicts[seat] = _reuse_verdict(seat, lease.bot, result, self.start_errors)


def _header(config: MatchConfig, seating: Seating, players: Sequence[Player],
            processes: list[dict[str, Any] | None] | None, runtime: Runtime, sandbox: str,
            spawned: bool) -> dict[str, Any]:
    """The hand log's header (:func:`arena.records.handlog.match_header`)."""
    return match_header(
        match_id=config.match_id, seed=config.seed, rules=config.rules, first_dealer=config.first_dealer,
        decision_ms=config.decision_ms, time_bank_ms=config.time_bank_ms, max_faults=config.max_faults,
        # How it was run for speed (the polling window, the gRPC tuning).
        run=runtime.header(),
        # Which isolation the bot processes had (arena/remote/sandbox.py).
        sandbox=sandbox_protections(sandbox) if spawned else None,
        seats=[
            {
                "seat": s,
                "entry": seating.seats[s],
                "bot": getattr(p, "name", seating.seats[s]),
                "version": (p.info.version if getattr(p, "info", None) is not None else ""),  # type: ignore[attr-defined]
                # Started for this match or kept from an earlier one (arena/runner/pool.py).
                "process": processes[s] if processes else None,
            }
            for s, p in enumerate(players)
        ],
    )


def not_started_result(config: MatchConfig, start_errors: dict[int, str], start_error: str) -> MatchResult:
    """The result of a match some bots did not start for (``start_errors``: seat ->
    error): their team forfeits; both teams' bots failing aborts the match."""
    failed_teams = {seat & 1 for seat in start_errors}
    winner = None if len(failed_teams) == 2 else 1 - next(iter(failed_teams))
    return MatchResult(
        match_id=config.match_id, seed=config.seed, winner_team=winner, games_won=(0, 0),
        reason=MatchEndReason.FORFEIT if winner is not None else MatchEndReason.ABORTED, hands=0, stones=(0, 0),
        seats=[], detail=start_error.strip(),
    )


def _reuse_verdict(seat: int, bot: RemoteBot, result: MatchResult, start_errors: dict[int, str]) -> str | None:
    """Why the pooled process of ``seat`` must not play another match; None after a
    clean match."""
    if seat in start_errors:
        return "it did not start"
    if seat >= len(result.seats):
        return "the match was not played"  # the other team's bot did not start
    kinds = sorted({f.kind.value for f in result.seats[seat].faults})
    if kinds:
        return f"it faulted in the match ({', '.join(kinds)})"
    if bot.is_dead():
        return "its process exited"
    if not bot.ended_cleanly:
        return "it did not end its stream cleanly"
    return None


def _log_start_failures(match_id: str, specs: Sequence[BotSpec], seating: Seating,
                        start_errors: dict[int, str]) -> None:
    """One ``bot.start_failed`` event per entry (and bot) that failed to start in the
    match, with the first seat's error: the seats of one bot fail alike, and each error
    already quotes the bot's exit code and stderr; every seat's error is in the result."""
    groups: dict[tuple[str, str], list[int]] = {}
    for seat in sorted(start_errors):
        groups.setdefault((seating.seats[seat], specs[seat].name), []).append(seat)
    for (entry, bot), seats in groups.items():
        # Info, not error: the league's match line and the summary at the end of the run
        # (and mus match's summary) say it already; -v shows it here too.
        log.info("bot.start_failed", match_id=match_id, entry=entry, bot=bot, seats=seats,
                  error=start_errors[seats[0]])
