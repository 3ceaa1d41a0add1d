"""``mus check``: a conformance test for bot authors, in numbered steps (fastchess style);
and re-asking a bot a logged seat's decisions (``mus replay --against``)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import check_again
from arena.engine import Action, MatchEndReason, MusState, Observation, Rules, Sena, format_legal, is_in
from arena.handlog import HandLog
from arena.players.local import RandomPlayer
from arena.referee.eventloop import thread_loop
from arena.referee.match import MatchConfig, play_match
from arena.referee.player import (
    BotFault,
    Decision,
    DecisionTiming,
    FaultKind,
    MatchEndInfo,
    MatchStartInfo,
    Player,
    SyncAdapter,
    Turn,
)
from arena.referee.session import Faulted, MatchSession
from arena.remote import grants
from arena.remote.client import RemoteBot, close_bots
from arena.remote.manifest import BotManifest, BotSpec, parse_bot_spec
from arena.remote.process import BotProcess, BotStartError

STEPS = (
    "starts",
    "announces its address on the first line of stdout",
    "answers GetInfo",
    "answers a decision within its deadline",
    "the answer is legal",
    "answers only legal actions across a full match",
    "handles the notifications (hand end, match end)",
    "shuts down when asked",
    check_again.TITLE,
)
"""The check's steps; a step keeps its number whether or not the steps before it apply
(a bot at an address has no steps 1, 2 and 8), so that the numbers in the docs hold."""

CHECK_MIN_HANDS = 8
"""Hands step 6 plays at least (a match of one game to 40 between equal bots lasts about
8 to 15), in up to :data:`CHECK_MAX_MATCHES` matches."""
CHECK_MAX_MATCHES = 4
CHECK_RANDOM_HANDS = 4
"""Hands step 6 then plays against random play (at least; in up to
:data:`CHECK_RANDOM_MATCHES` matches): against itself a bot never meets what it never
does (a bot that never bids órdago never has to answer one); random play bids, raises
and goes órdago at every turn."""
CHECK_RANDOM_MATCHES = 3
STDERR_TAIL_LINES = 10
"""The last lines of a failing bot's stderr the check shows (after the first ten)."""


@dataclass
class StepResult:
    """One numbered step of the check."""

    number: int
    title: str
    ok: bool
    detail: str = ""
    warning: bool = False
    """Passed, but with something the author should know (step 9: play that depends on
    earlier matches, which a bot may want)."""


def stderr_excerpt(process: BotProcess) -> list[str]:
    """The start and the end of what a bot wrote to stderr, each line once, made
    printable (:meth:`BotProcess.stderr_excerpt`, with this check's shorter end)."""
    return process.stderr_excerpt(STDERR_TAIL_LINES)


def _echo_stderr(echo: Callable[[str], None], process: BotProcess | None, whose: str = "bot") -> None:
    if process is None:
        return
    lines = stderr_excerpt(process)
    if not lines:
        echo(f"      {whose} stderr: (empty)")
        return
    echo(f"      {whose} stderr (its first and last lines):")
    for line in lines:
        echo(f"      | {line}")


def _first_line(exc: BaseException) -> str:
    """An error message without the stderr lines that the start-up errors quote (the
    check shows the bot's stderr itself, once, start and end)."""
    text = str(exc).split("\n", 1)[0]
    text = text.split("; its stderr (", 1)[0]
    return text.removesuffix(" (its stderr was empty)")


def command_problem(command: str, workdir: Path, env_path: str | None) -> str:
    """Why a bot's command cannot run ("" if it can): resolved as the launcher resolves
    it, a path relative to the bot's working directory, a bare name on its ``PATH``."""
    if "/" in command:
        path = workdir / command  # an absolute command stays itself
        if not path.is_file():
            return f"{path} does not exist"
        return "" if os.access(path, os.X_OK) else f"{path} is not executable (chmod +x)"
    if shutil.which(command, path=env_path) is None:
        return f"{command!r} is not found on the bot's PATH ({env_path or ''})"
    return ""


def _exit_text(code: int) -> str:
    if code >= 0:
        return f"exited with code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return f"was killed by {name}"


class _CheckedProcess(BotProcess):
    """A bot process that remembers whether it had exited before the arena stopped it,
    so that a failed step can say "the process exited with code N" only when the bot
    exited by itself (not when the arena's SIGTERM ended it)."""

    exited_by_itself: bool | None = None

    def stop(self, grace_s: float = 2.0) -> None:
        if self.exited_by_itself is None and self.proc is not None:
            self.exited_by_itself = self.proc.poll() is not None
        super().stop(grace_s)


async def _decide_timed(bot: RemoteBot, turn: Turn) -> tuple[Decision, float]:
    """The bot's decision and the seconds it took; a fault raises :class:`BotFault`."""
    t0 = time.perf_counter()
    await bot.send(turn, bot.encode(turn))
    decision = await bot.receive(turn)
    return decision, time.perf_counter() - t0


def run_check(
    spec_text: str, echo: Callable[[str], None] = print, decision_ms: int = 2000, sandbox: str = "default"
) -> list[StepResult]:
    """Run the conformance steps against a bot; stop at the first failed step.

    On a failure the first and last lines of the bot's stderr are printed, once.
    ``sandbox``: the profile its processes run under (``strict``: as in a tournament).
    """
    with tempfile.TemporaryDirectory(prefix="mus-check-") as tmp:
        check = _Check(grants.ungranted(parse_bot_spec(spec_text), sandbox), Path(tmp), echo, decision_ms, sandbox)
        try:
            _ = (check.started() and check.answers_info() and check.first_decision() and check.full_match()
                 and check.shuts_down() and check.plays_alike())
        finally:
            close_bots([check.bot])
        return check.results


class _Check:
    """The steps of ``mus check``, in order; each returns whether the check goes on."""

    def __init__(self, spec: BotSpec, logs: Path, echo: Callable[[str], None], decision_ms: int,
                 sandbox: str) -> None:
        self.spec, self.logs, self.echo, self.decision_ms, self.sandbox = spec, logs, echo, decision_ms, sandbox
        self.bot = RemoteBot(spec, logs, "check", sandbox=sandbox)
        self.results: list[StepResult] = []
        self.loop = thread_loop()
        self.fresh_hands: list[dict[str, Any]] = []  # step 6's first match, in processes new to matches
        self.again: check_again.AgainVerdict | None = None  # step 9, found before step 8 stops the bot

    def step(self, number: int, ok: bool, detail: str = "", stderr_of: BotProcess | None = None,
             warning: bool = False) -> bool:
        """Record and print one step's result (with the bot's stderr on a failure)."""
        r = StepResult(number, STEPS[number - 1], ok, detail, warning)
        self.results.append(r)
        mark = "FAIL" if not ok else "WARN" if warning else "PASS"
        self.echo(f"[{mark}] {r.number}. {r.title}" + (f": {detail}" if detail else ""))
        if not ok:
            _echo_stderr(self.echo, stderr_of if stderr_of is not None else self.bot.process)
        return ok

    def started(self) -> bool:
        """1-2: start and announce. The same process then answers step 3 and plays on."""
        if not isinstance(self.spec, BotManifest):
            self.echo("(a bot at an address: steps 1, 2 and 8 are the launcher's, and 9 needs processes the check "
                      "starts: they are skipped)")
            return True
        proc = _CheckedProcess(self.spec, self.logs, "check", sandbox=self.sandbox)
        try:
            proc.spawn()
        except BotStartError as exc:
            return self.step(1, False, str(exc), stderr_of=proc)
        # The launch wrappers (prlimit, bwrap) start whatever the command is: whether the
        # command itself can run is found as they will look for it.
        env_path = proc.confinement.env.get("PATH") if proc.confinement is not None else None
        problem = command_problem(self.spec.command[0], self.spec.workdir, env_path)
        if problem:
            proc.stop(0.5)
            return self.step(1, False, f"cannot run {' '.join(self.spec.command)!r}: {problem}")
        self.step(1, True, " ".join(self.spec.command))
        try:
            ann = proc.wait_announce(10.0)
        except BotStartError as exc:
            return self.step(2, False, _first_line(exc), stderr_of=proc)
        self.bot.process = proc  # connect() then only waits for this process's announce
        return self.step(2, True, ann.line())

    def answers_info(self) -> bool:
        """3: GetInfo, with a name."""
        try:
            info = self.bot.connect()
        except BotStartError as exc:
            detail = _first_line(exc)
            started = self.bot.process
            if isinstance(started, _CheckedProcess) and started.proc is not None and started.proc.returncode is not None:
                if started.exited_by_itself:
                    detail = f"the process {_exit_text(started.proc.returncode)} before answering GetInfo ({detail})"
                else:
                    detail += " (the process was still running; the arena stopped it)"
            return self.step(3, False, detail)
        return self.step(3, bool(info.name),
                         f"name={info.name!r} version={info.version!r} protocols={list(info.protocol_versions)}")

    def first_decision(self) -> bool:
        """4-5: the first decision of a match, judged by the referee's own session."""
        bot, decision_ms = self.bot, self.decision_ms
        session = MatchSession(MatchConfig(rules=Rules(), seed=1, match_id="check", decision_ms=decision_ms,
                                           time_bank_ms=60_000), ("check",) * 4)
        turn = session.turn
        assert turn is not None
        self.loop.run_until_complete(bot.start_match(session.start_info(turn.seat)))
        try:
            decision, took = self.loop.run_until_complete(_decide_timed(bot, turn))
        except BotFault as exc:
            return self.step(4, False, f"{exc.kind.value}: {exc.detail}")
        session.answer(decision, took)
        verdicts = {e.fault.kind: e.fault.detail for e in session.events() if isinstance(e, Faulted)}
        # As the referee does: an answer read after the deadline is late, even when it
        # came in the same turn of the event loop as the deadline.
        late = FaultKind.TIMEOUT in verdicts
        if not self.step(4, not late, f"{decision.action} in {took * 1000:.1f} ms"
                         + (f", after its deadline of {decision_ms} ms" if late else "")):
            return False
        self.loop.run_until_complete(bot.end_match(MatchEndInfo(None, (0, 0), MatchEndReason.ABORTED, "check")))
        illegal = verdicts.get(FaultKind.ILLEGAL_ACTION) or verdicts.get(FaultKind.ILLEGAL_SENA)
        return self.step(5, illegal is None, illegal or "")

    def full_match(self) -> bool:
        """6-7: a full match of four instances, notifications included."""
        bot = self.bot
        players = [bot] + [RemoteBot(self.spec, self.logs, f"check-s{s}", sandbox=self.sandbox) for s in (1, 2, 3)]
        try:
            for p in players[1:]:
                p.connect()
            if not isinstance(self.spec, BotManifest):
                # One process plays all four seats: first make sure it serves four
                # streams at once, or the match would end in a bare timeout.
                short = _streams_at_once(players, self.decision_ms)
                if short:
                    return self.step(6, False, short)
            # A bot that ends its matches early (an órdago accepted in the first hand) would
            # show little of its code in one match: matches are played, on new deals,
            # until CHECK_MIN_HANDS hands or CHECK_MAX_MATCHES matches. Then, the bot at S0
            # and S2, against random play, until CHECK_RANDOM_HANDS hands or
            # CHECK_RANDOM_MATCHES matches.
            hands = decisions = played = 0
            seated: list[Player] = list(players)
            phases: tuple[tuple[list[RemoteBot] | None, int, int, str], ...] = ((players, CHECK_MIN_HANDS, CHECK_MAX_MATCHES, ""),
                      (None, CHECK_RANDOM_HANDS, CHECK_RANDOM_MATCHES, ", against random play"))
            note = ""
            for fixed, min_hands, max_matches, against in phases:
                if max_matches < 1:
                    continue
                phase_hands = phase_played = 0
                note = against  # where the last match was played, for a failure's message
                while True:
                    seated = list(fixed) if fixed else [
                        bot, SyncAdapter(RandomPlayer(seed=played, name="random")), players[2],
                        SyncAdapter(RandomPlayer(seed=played + 100, name="random"))]
                    result = play_match(seated, self._match_config(played),
                                        on_hand=self.fresh_hands.append if played == 0 else None)
                    played += 1
                    phase_played += 1
                    hands += result.hands
                    phase_hands += result.hands
                    decisions += sum(st.decisions for st, p in zip(result.seats, seated, strict=False)
                                     if isinstance(p, RemoteBot))
                    if result.faults or result.reason is not MatchEndReason.COMPLETED:
                        break
                    if phase_hands >= min_hands or phase_played >= max_matches:
                        break
                if result.faults or result.reason is not MatchEndReason.COMPLETED:
                    break
            else:
                if isinstance(self.spec, BotManifest) and bot.ended_cleanly:
                    self.again = self._play_first_match_again(players)
        finally:
            close_bots(players[1:])
        faults = result.faults
        where = f" (match {played}{note})" if played > 1 else ""
        if faults:
            culprit = getattr(seated[faults[0].seat], "process", None)
            return self.step(6, False, f"{faults[0].kind.value} at S{faults[0].seat}{where}: {faults[0].detail}",
                             stderr_of=culprit if culprit is not None else bot.process)
        completed = result.reason is MatchEndReason.COMPLETED
        summary = (f"{decisions} decision{'s' * (decisions != 1)}, {hands} hand{'s' * (hands != 1)}"
                   + (f" in {played} matches" if played > 1 else "")
                   + (", against itself and random play" if note else ""))
        if not self.step(6, completed, summary if completed else f"the match ended {result.reason.value}{where}: {result.detail}"):
            return False
        alive = bot.process.alive() if bot.process is not None else True
        return self.step(7, alive and bot.ended_cleanly,
                         "read every notification and closed its side of the stream" if alive and bot.ended_cleanly
                         else "the process exited" if not alive else "the stream did not end cleanly after the match end")

    def _match_config(self, played: int) -> MatchConfig:
        """Step 6's match number ``played + 1`` (step 9 plays the first again)."""
        return MatchConfig(rules=Rules(games_to_win=1), seed=7 + played, match_id=f"check-match-{played + 1}",
                           decision_ms=self.decision_ms, time_bank_ms=600_000, max_faults=1)

    def _play_first_match_again(self, players: list[RemoteBot]) -> check_again.AgainVerdict:
        """Step 9's play (before step 8 stops the bot): step 6's first match again, in
        the same four processes, which have now played matches (docs: check_again)."""
        again: list[dict[str, Any]] = []
        play_match(players, self._match_config(0), on_hand=again.append)
        assert isinstance(self.spec, BotManifest)
        return check_again.verdict(self.fresh_hands, again, self.spec.fresh_process)

    def plays_alike(self) -> bool:
        """9: the same play in a fresh process and after other matches (a warning if not)."""
        if self.again is None:  # a bot at an address: no fresh process to compare with
            return True
        return self.step(9, self.again.ok, self.again.detail, warning=self.again.warning)

    def shuts_down(self) -> bool:
        """8: Shutdown (a process the check started)."""
        process = self.bot.process.proc if self.bot.process is not None else None
        if process is None:
            return True
        try:
            self.loop.run_until_complete(self.bot.request_shutdown(2.0))
            process.wait(timeout=3.0)
        except Exception as exc:
            return self.step(8, False, f"still running 3 s after Shutdown ({type(exc).__name__})")
        return self.step(8, True, f"exit code {process.returncode}")


def _streams_at_once(players: list[RemoteBot], decision_ms: int) -> str:
    """Open one ``Play`` stream per player (all at one address), ask one decision on each
    at the same time, and end them; "" if every stream answered, else why it matters."""
    loop = thread_loop()
    state = MusState.new(Rules(), seed=1)
    seat = state.to_act
    assert seat is not None
    view = state.view(seat)
    timing = DecisionTiming(decision_ms / 1000, 60.0)

    async def probe() -> list[Any]:
        for i, p in enumerate(players):
            await p.start_match(MatchStartInfo(f"check-streams-{i}", seat, Rules(), ("check",) * 4, decision_ms, 60_000))
        answers = await asyncio.gather(*(p.decide(view, 1, timing) for p in players), return_exceptions=True)
        for p in players:
            await p.end_match(MatchEndInfo(None, (0, 0), MatchEndReason.ABORTED, "check"))
        return answers

    answers = loop.run_until_complete(probe())
    answered = sum(isinstance(a, Decision) for a in answers)
    if answered == len(players):
        return ""
    fault = next(a for a in answers if not isinstance(a, Decision))
    why = f"{fault.kind.value}: {fault.detail}" if isinstance(fault, BotFault) else f"{type(fault).__name__}: {fault}"
    if not answered:  # not a matter of concurrency: no stream got an answer
        return f"with {len(players)} Play streams open at once, none answered ({why})"
    # A server with too few threads queues the extra streams (a timeout), or refuses
    # them (RESOURCE_EXHAUSTED): either way only some of the streams are served.
    return (
        f"answered on {answered} of {len(players)} Play streams open at once (the others: {why}). "
        f"A bot given by address plays every seat it is named for, one stream each, at the same time: "
        f"mus check plays it against itself, so it must serve {len(players)} streams at once "
        f"(a gRPC server needs that many worker threads); see docs/protocol.md §1"
    )


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
        d, took = loop.run_until_complete(_decide_timed(bot, turn))
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
                process = _CheckedProcess(spec, Path(tmp), "against")
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


def _conclude(report: AgainstReport, bot: RemoteBot, process: _CheckedProcess | None, broken: str) -> None:
    """The report's last line when the bot's stream broke (with its exit code, if it
    exited by itself), and its stderr when it misbehaved."""
    if broken:
        exited = ""
        if process is not None and process.exited_by_itself and process.proc is not None and process.proc.returncode is not None:
            exited = f"the process {_exit_text(process.proc.returncode)}; "
        report.lines.append(f"the bot's stream broke ({exited}{broken}): {report.not_asked} later decision(s) not asked")
    if bot.process is not None and (report.illegal or report.late or report.faults or report.not_asked):
        report.stderr = stderr_excerpt(bot.process) or ["(empty)"]
