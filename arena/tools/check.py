"""``mus check``: a conformance test for bot authors, in numbered steps (fastchess style).

It shares with ``mus replay --against`` (:mod:`arena.tools.replay_against`) the bot process
that knows whether it exited by itself (:class:`~arena.tools.replay_against.CheckedProcess`)
and the timed decision (:func:`~arena.tools.replay_against.decide_timed`)."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mus_core import MatchEndReason, Rules
from mus_core.state import MusState

from arena.driver.match import MatchConfig, MatchResult, play_match
from arena.players.local import RandomPlayer
from arena.referee.player import (
    BotFault,
    Decision,
    DecisionTiming,
    FaultKind,
    MatchEndInfo,
    MatchStartInfo,
    Player,
    SyncAdapter,
)
from arena.referee.session import Faulted, MatchSession
from arena.remote import grants
from arena.remote.client import RemoteBot, close_bots
from arena.remote.manifest import BotManifest, BotSpec, parse_bot_spec
from arena.remote.process import BotProcess, BotStartError
from arena.runtime.eventloop import thread_loop
from arena.tools import check_again
from arena.tools.replay_against import CheckedProcess, decide_timed, exit_text, stderr_excerpt

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


@dataclass
class _Played:
    """Step 6's matches so far: the last one's result and seats, and the totals."""

    result: MatchResult | None = None
    """The last match's result."""
    seated: list[Player] = field(default_factory=list)
    matches: int = 0
    hands: int = 0
    decisions: int = 0
    """Decisions of the checked bot's processes (not of random play)."""
    note: str = ""
    """Where the last match was played (``, against random play``), for a message."""

    @property
    def clean(self) -> bool:
        """Whether the last match completed without a fault."""
        assert self.result is not None, "no match played yet"
        return not self.result.faults and self.result.reason is MatchEndReason.COMPLETED


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
        proc = CheckedProcess(self.spec, self.logs, "check", sandbox=self.sandbox)
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
            if isinstance(started, CheckedProcess) and started.proc is not None and started.proc.returncode is not None:
                if started.exited_by_itself:
                    detail = f"the process {exit_text(started.proc.returncode)} before answering GetInfo ({detail})"
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
            decision, took = self.loop.run_until_complete(decide_timed(bot, turn))
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
            played = self._play_matches(players)
            if played.clean and isinstance(self.spec, BotManifest) and bot.ended_cleanly:
                self.again = self._play_first_match_again(players)
        finally:
            close_bots(players[1:])
        result, n = played.result, played.matches
        assert result is not None
        where = f" (match {n}{played.note})" if n > 1 else ""
        if result.faults:
            fault = result.faults[0]
            culprit = getattr(played.seated[fault.seat], "process", None)
            return self.step(6, False, f"{fault.kind.value} at S{fault.seat}{where}: {fault.detail}",
                             stderr_of=culprit if culprit is not None else bot.process)
        completed = result.reason is MatchEndReason.COMPLETED
        summary = (f"{played.decisions} decision{'s' * (played.decisions != 1)}, "
                   f"{played.hands} hand{'s' * (played.hands != 1)}"
                   + (f" in {n} matches" if n > 1 else "")
                   + (", against itself and random play" if played.note else ""))
        if not self.step(6, completed, summary if completed else f"the match ended {result.reason.value}{where}: {result.detail}"):
            return False
        alive = bot.process.alive() if bot.process is not None else True
        return self.step(7, alive and bot.ended_cleanly,
                         "read every notification and closed its side of the stream" if alive and bot.ended_cleanly
                         else "the process exited" if not alive else "the stream did not end cleanly after the match end")

    def _play_matches(self, players: list[RemoteBot]) -> _Played:
        """Step 6's matches, until the first that does not complete cleanly.

        A bot that ends its matches early (an órdago accepted in the first hand) would
        show little of its code in one match: matches are played, on new deals, until
        :data:`CHECK_MIN_HANDS` hands or :data:`CHECK_MAX_MATCHES` matches. Then, the bot
        at S0 and S2, against random play, until :data:`CHECK_RANDOM_HANDS` hands or
        :data:`CHECK_RANDOM_MATCHES` matches.
        """
        bot = self.bot
        played = _Played()
        phases = ((players, CHECK_MIN_HANDS, CHECK_MAX_MATCHES, ""),
                  (None, CHECK_RANDOM_HANDS, CHECK_RANDOM_MATCHES, ", against random play"))
        for fixed, min_hands, max_matches, against in phases:
            if max_matches < 1:
                continue
            phase_hands = phase_played = 0
            played.note = against  # where the last match was played, for a failure's message
            while True:
                n = played.matches
                played.seated = list(fixed) if fixed else [
                    bot, SyncAdapter(RandomPlayer(seed=n, name="random")), players[2],
                    SyncAdapter(RandomPlayer(seed=n + 100, name="random"))]
                result = play_match(played.seated, self._match_config(n),
                                    on_hand=self.fresh_hands.append if n == 0 else None)
                played.result = result
                played.matches += 1
                phase_played += 1
                played.hands += result.hands
                phase_hands += result.hands
                played.decisions += sum(st.decisions for st, p in zip(result.seats, played.seated, strict=False)
                                        if isinstance(p, RemoteBot))
                if not played.clean:
                    return played
                if phase_hands >= min_hands or phase_played >= max_matches:
                    break
        return played

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
