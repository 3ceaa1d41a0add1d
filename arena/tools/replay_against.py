"""``mus replay --against``: ask a bot a logged seat's decisions again, with the logged
time control, and report where it answers differently, illegally or late.

The logged match is played again by a :class:`~arena.referee.session.MatchSession` fed
the logged answers and times, so each request is what the seat was told in the match.
``mus check`` (:mod:`arena.tools.check`) uses this module's bot process
(:class:`CheckedProcess`), timed decision (:func:`decide_timed`) and stderr excerpt.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mus_core import Action, MatchEndReason, Observation, Rules, Sena, format_legal, is_in

from arena.driver.match import MatchConfig
from arena.records.handlog import HandLog
from arena.referee.player import (
    BotFault,
    Decision,
    DecisionTiming,
    FaultKind,
    MatchEndInfo,
    MatchStartInfo,
    Turn,
)
from arena.referee.session import Faulted, MatchSession
from arena.remote.client import RemoteBot, close_bots
from arena.remote.manifest import BotManifest, parse_bot_spec
from arena.remote.process import BotProcess
from arena.runtime.eventloop import thread_loop

STDERR_TAIL_LINES = 10
"""The last lines of a failing bot's stderr shown (after the first ten)."""


def stderr_excerpt(process: BotProcess) -> list[str]:
    """The start and the end of what a bot wrote to stderr, each line once, made
    printable (:meth:`BotProcess.stderr_excerpt`, with this check's shorter end)."""
    return process.stderr_excerpt(STDERR_TAIL_LINES)


def exit_text(code: int) -> str:
    """How a process ended, for a message: ``exited with code 3``, ``was killed by SIGKILL``."""
    if code >= 0:
        return f"exited with code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return f"was killed by {name}"


class CheckedProcess(BotProcess):
    """A bot process that remembers whether it had exited before the arena stopped it,
    so that a failed step can say "the process exited with code N" only when the bot
    exited by itself (not when the arena's SIGTERM ended it)."""

    exited_by_itself: bool | None = None

    def stop(self, grace_s: float = 2.0) -> None:
        if self.exited_by_itself is None and self.proc is not None:
            self.exited_by_itself = self.proc.poll() is not None
        super().stop(grace_s)


async def decide_timed(bot: RemoteBot, turn: Turn) -> tuple[Decision, float]:
    """The bot's decision and the seconds it took; a fault raises :class:`BotFault`."""
    t0 = time.perf_counter()
    await bot.send(turn, bot.encode(turn))
    decision = await bot.receive(turn)
    return decision, time.perf_counter() - t0


@dataclass
class AgainstReport:
    """What ``mus replay --against`` found: one line per decision worth reporting."""

    asked: int = 0
    """Decisions re-sent to the bot."""
    lines: list[str] = field(default_factory=list)
    differently: int = 0
    """Legal, in-time answers that differ from the logged ones."""
    illegal: int = 0
    """Answers that are not legal (action or seña)."""
    late: int = 0
    """Decisions answered after their deadline, or not at all within it."""
    faults: int = 0
    """Other faults: a broken stream, an unreadable answer, another request's id."""
    not_asked: int = 0
    """Decisions not re-sent because the bot's stream broke before them (a failure)."""
    bank_empty: int = 0
    """Decisions not re-sent because the seat's time bank was empty in the log (the
    referee did not ask them either: it played the default at once)."""
    decision_ms: int = 0
    time_bank_ms: int = 0
    stderr: list[str] = field(default_factory=list)
    """The start and end of the bot's stderr (kept when it misbehaved)."""

    @property
    def failed(self) -> bool:
        """Whether anything was found (``mus replay`` then exits 1)."""
        return bool(self.differently or self.illegal or self.late or self.faults or self.not_asked)


def _logged_text(action: str, sena: str | None) -> str:
    return action + (f" + seña {sena}" if sena else "")


def _ask_again(report: AgainstReport, loop: asyncio.AbstractEventLoop, bot: RemoteBot, where: str, turn: Turn,
               step: dict[str, Any]) -> str:
    """Ask ``bot`` a logged turn again and report what it did; returns why its stream
    broke ("" if it did not)."""
    logged = _logged_text(str(step.get("action")), step.get("sena"))
    if step.get("fault"):
        logged = f"FAULT {step['fault'].get('kind')} (the referee played {logged})"
    timing = turn.timing
    try:
        d, took = loop.run_until_complete(decide_timed(bot, turn))
    except BotFault as exc:
        if exc.kind is FaultKind.TIMEOUT:
            report.late += 1
            report.lines.append(f"{where}: LATE: no answer within {timing.deadline_s * 1000:.0f} ms; logged {logged}")
        else:
            report.faults += 1
            report.lines.append(f"{where}: FAULT {exc.kind.value}: {exc.detail}; logged {logged}")
            if exc.kind is FaultKind.CRASH:
                return exc.detail
        return ""
    _judge(report, where, turn.view, d, took, timing, logged)
    return ""


def _judge(report: AgainstReport, where: str, view: Observation, d: Decision, took: float, timing: DecisionTiming,
           logged: str) -> None:
    """Count and describe one answer the bot gave again: late, illegal, or not as logged."""
    sena = d.sena.name.lower() if isinstance(d.sena, Sena) else None
    now = _logged_text(str(d.action), sena)
    if took > timing.deadline_s:
        report.late += 1
        report.lines.append(f"{where}: LATE: answered {now} after {took * 1000:.0f} ms "
                            f"(deadline {timing.deadline_s * 1000:.0f} ms); logged {logged}")
    elif not is_in(d.action, view.legal_actions):
        report.illegal += 1
        report.lines.append(f"{where}: ILLEGAL: {d.action} is not legal "
                            f"(legal: {format_legal(view.legal_actions)}); logged {logged}")
    elif d.sena is not None and d.sena not in view.legal_senas:
        report.illegal += 1
        report.lines.append(f"{where}: ILLEGAL seña {sena} (legal: "
                            f"{', '.join(s.name.lower() for s in view.legal_senas) or 'none'}); logged {logged}")
    elif now != logged:  # a logged fault never equals an answer
        report.differently += 1
        report.lines.append(f"{where}: logged {logged}, now {now}")


class _OutOfSync(Exception):
    """The log stops following from its seed here (a legacy or damaged log)."""


def _logged_turns(log: HandLog, config: MatchConfig, names: Sequence[str]) -> Iterator[tuple[str, Turn | None, dict[str, Any]]]:
    """The logged match played again by a session, fed the logged answers and times:
    each logged step (``hand H step I``) with the turn the session gives for it, None for
    a step the session played itself, as the referee did (the seat's bank was spent).

    Raises:
        _OutOfSync: the log no longer follows from its seed (``mus replay --verify`` says why).
    """
    session = MatchSession(config, names)
    for rec in log.hands:
        if rec.get("deal") != session.deal:  # the views asked would not be the match's
            raise _OutOfSync(f"hand {rec.get('hand')}")
        for i, step in enumerate(rec.get("steps", [])):
            where = f"hand {rec.get('hand')} step {i}"
            turn, logged_id = session.turn, step.get("id")
            if turn is not None and isinstance(logged_id, int) and logged_id < turn.request_id:
                yield where, None, step
                continue
            if turn is None or turn.seat != step.get("seat") or logged_id not in (None, turn.request_id):
                raise _OutOfSync(where)
            yield where, turn, step
            try:
                fault = step.get("fault")
                kind = FaultKind(fault["kind"]) if fault else None
                elapsed = min(float(step.get("ms") or 0.0) / 1000, turn.timing.deadline_s)
                if kind is None or kind is FaultKind.ILLEGAL_SENA:  # the action counted
                    sena = step.get("sena") if kind is None else None
                    session.answer(Decision(Action.parse(step["action"]), Sena[sena.upper()] if sena else None), elapsed)
                else:
                    session.fault(kind, str(fault.get("detail", "")), elapsed)
            except (KeyError, ValueError, TypeError, AttributeError):
                raise _OutOfSync(where) from None
            faulted = [e.fault.kind for e in session.events() if isinstance(e, Faulted) and e.fault.request_id == turn.request_id]
            if faulted != ([kind] if kind is not None and kind is not FaultKind.ILLEGAL_SENA else []):
                raise _OutOfSync(where)  # the session judged the logged answer otherwise


def replay_against(log: HandLog, seat: int, spec_text: str) -> AgainstReport:
    """Re-send ``seat``'s logged decision requests to a bot, with the logged time control,
    and report where it answers differently, illegally or late.

    The logged match is played again by a session (:func:`_logged_turns`), so each
    request is what the seat was told in the match: the same view and request id, the
    deadline ``min(decision_ms, bank left)`` and the bank left after the seat's logged
    decision times. An answer counts as late past that deadline, as in a match.
    """
    header = log.header
    report = AgainstReport(decision_ms=int(header.get("decision_ms", 2000)),
                           time_bank_ms=int(header.get("time_bank_ms", 120_000)))
    spec = parse_bot_spec(spec_text)
    names = tuple(str(s.get("bot", "?")) for s in header.get("seats", []))
    config = MatchConfig(rules=Rules.from_mapping(dict(header.get("rules", {}))), seed=int(header.get("seed", 0)),
                         match_id=str(header.get("match_id")), decision_ms=report.decision_ms,
                         time_bank_ms=report.time_bank_ms, max_faults=0, max_hands=2**62,
                         first_dealer=header.get("first_dealer"))
    broken = ""
    with tempfile.TemporaryDirectory(prefix="mus-against-") as tmp:
        bot = RemoteBot(spec, Path(tmp), "against")
        process = None
        try:
            if isinstance(spec, BotManifest):
                # Started here so that a crash can be told with the process's exit code.
                process = CheckedProcess(spec, Path(tmp), "against")
                bot.process = process
                process.spawn()
            bot.connect()
            loop = thread_loop()
            loop.run_until_complete(bot.start_match(MatchStartInfo(
                config.match_id, seat, config.rules, names, report.decision_ms, report.time_bank_ms)))
            broken = _ask_seat(report, log, config, names, seat, loop, bot)
            loop.run_until_complete(bot.end_match(MatchEndInfo(None, (0, 0), MatchEndReason.ABORTED, "replay --against")))
            if broken and process is not None and process.proc is not None:
                # The stream breaks the moment the bot dies, but its exit (through the
                # launch wrappers, e.g. unshare's forked parent) is seen a moment later.
                try:
                    process.proc.wait(timeout=1.0)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            close_bots([bot])
        _conclude(report, bot, process, broken)
    return report


def _ask_seat(report: AgainstReport, log: HandLog, config: MatchConfig, names: tuple[str, ...], seat: int,
              loop: asyncio.AbstractEventLoop, bot: RemoteBot) -> str:
    """Ask the bot ``seat``'s logged turns, in order, until its stream breaks; returns
    why it broke ("" if it did not)."""
    broken = ""
    try:
        for where, turn, step in _logged_turns(log, config, names):
            if step.get("seat") != seat:
                continue
            if turn is None:  # the referee did not ask either
                report.bank_empty += 1
            elif broken:  # nobody left to ask
                report.not_asked += 1
            else:
                report.asked += 1
                broken = _ask_again(report, loop, bot, where, turn, step)
    except _OutOfSync as exc:
        left = sum(s.get("seat") == seat for rec in log.hands for s in rec.get("steps", []))
        left -= report.asked + report.not_asked + report.bank_empty
        report.not_asked += left
        report.lines.append(f"from {exc}, the log does not follow from its seed (see mus replay --verify): "
                            f"{left} later decision(s) of S{seat} not asked")
    return broken


def _conclude(report: AgainstReport, bot: RemoteBot, process: CheckedProcess | None, broken: str) -> None:
    """The report's last line when the bot's stream broke (with its exit code, if it
    exited by itself), and its stderr when it misbehaved."""
    if broken:
        exited = ""
        if process is not None and process.exited_by_itself and process.proc is not None and process.proc.returncode is not None:
            exited = f"the process {exit_text(process.proc.returncode)}; "
        report.lines.append(f"the bot's stream broke ({exited}{broken}): {report.not_asked} later decision(s) not asked")
    if bot.process is not None and (report.illegal or report.late or report.faults or report.not_asked):
        report.stderr = stderr_excerpt(bot.process) or ["(empty)"]
