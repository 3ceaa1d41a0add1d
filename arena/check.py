"""``mus check``: a conformance test for bot authors, in numbered steps (fastchess style);
and re-asking a bot a logged seat's decisions (``mus replay --against``)."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.engine import MusState, Rules, Sena
from arena.handlog import HandLog
from arena.referee.eventloop import thread_loop
from arena.referee.match import MatchConfig, play_match
from arena.referee.player import BotFault, DecisionTiming, MatchEndInfo, MatchStartInfo
from arena.remote.client import RemoteBot
from arena.remote.manifest import BotManifest, parse_bot_spec
from arena.remote.process import BotProcess, BotStartError


@dataclass
class StepResult:
    """One numbered step of the check."""

    number: int
    title: str
    ok: bool
    detail: str = ""


def run_check(spec_text: str, echo: Callable[[str], None] = print, decision_ms: int = 2000) -> list[StepResult]:
    """Run the conformance steps against a bot; stop at the first failed step.

    On a failure the bot's last stderr lines are printed.
    """
    results: list[StepResult] = []
    spec = parse_bot_spec(spec_text)
    tmp = tempfile.TemporaryDirectory(prefix="mus-check-")
    logs = Path(tmp.name)
    bot = RemoteBot(spec, logs, "check")

    def step(title: str, ok: bool, detail: str = "") -> bool:
        r = StepResult(len(results) + 1, title, ok, detail)
        results.append(r)
        echo(f"[{'PASS' if ok else 'FAIL'}] {r.number}. {title}" + (f": {detail}" if detail else ""))
        if not ok and bot.process is not None:
            tail = bot.process.stderr_tail()
            echo("      bot stderr (last lines):" if tail else "      bot stderr: (empty)")
            for line in tail:
                echo(f"      | {line}")
        return ok

    try:
        # 1-2: start and announce (a bot at an address skips the process steps).
        if isinstance(spec, BotManifest):
            proc = BotProcess(spec, logs, "check-start")
            try:
                ann = proc.start(10.0)
            except BotStartError as exc:
                msg = str(exc)
                started = "cannot run" not in msg
                step("starts", started, "" if started else msg)
                if started:
                    step("announces its address on the first line of stdout", False, msg)
                return results
            finally:
                proc.stop(grace_s=0.1)
            step("starts", True, f"{' '.join(spec.command)}")
            step("announces its address on the first line of stdout", True, ann.line())
        # 3: GetInfo
        try:
            info = bot.connect()
        except BotStartError as exc:
            step("answers GetInfo", False, str(exc))
            return results
        if not step("answers GetInfo", bool(info.name), f"name={info.name!r} version={info.version!r} protocols={list(info.protocol_versions)}"):
            return results
        # 4: one decision within the deadline
        state = MusState.new(Rules(), seed=1)
        loop = thread_loop()
        loop.run_until_complete(bot.start_match(MatchStartInfo("check", 0, Rules(), ("check",) * 4, decision_ms, 60_000)))
        seat = state.to_act
        assert seat is not None
        t0 = time.perf_counter()
        try:
            decision = loop.run_until_complete(bot.decide(state.view(seat), 1, DecisionTiming(decision_ms / 1000, 60.0)))
            ms = (time.perf_counter() - t0) * 1000
            legal = state.is_legal(decision.action)
            ok = step("answers a decision within its deadline", True, f"{decision.action} in {ms:.1f} ms")
            ok = step("the answer is legal", legal, "" if legal else f"{decision.action} not in {[str(a) for a in state.legal_actions()]}") and ok
        except BotFault as exc:
            step("answers a decision within its deadline", False, str(exc))
            return results
        loop.run_until_complete(bot.end_match(MatchEndInfo(None, (0, 0), "aborted", "check")))
        if not ok:
            return results
        # 5-6: a full match of four instances, notifications included
        players = [bot] + [RemoteBot(spec, logs, f"check-s{s}") for s in (1, 2, 3)]
        try:
            for p in players[1:]:
                p.connect()
            result = play_match(players, MatchConfig(rules=Rules(games_to_win=1), seed=7, match_id="check-match",
                                                     decision_ms=decision_ms, time_bank_ms=600_000, max_faults=1))
        finally:
            for p in players[1:]:
                p.close()
        faults = result.faults
        if not step("answers only legal actions across a full match", not faults and result.reason == "completed",
                    f"{sum(s.decisions for s in result.seats)} decisions, {result.hands} hands"
                    if not faults else f"{faults[0].kind.value} at S{faults[0].seat}: {faults[0].detail}"):
            culprit = players[faults[0].seat] if faults else None
            if culprit is not None and culprit is not bot and getattr(culprit, "process", None) is not None:
                echo(f"      stderr of the bot at S{faults[0].seat} (last lines):")
                for line in culprit.process.stderr_tail():  # type: ignore[union-attr]
                    echo(f"      | {line}")
            return results
        alive = bot.process.alive() if bot.process is not None else True
        step("handles the notifications (hand end, match end)", alive and bot.ended_cleanly,
             "read every notification and closed its side of the stream" if alive and bot.ended_cleanly
             else "the process exited" if not alive else "the stream did not end cleanly after the match end")
        # 7: Shutdown
        if isinstance(spec, BotManifest) and bot.process is not None and bot.process.proc is not None:
            proc_ = bot.process.proc
            try:
                loop.run_until_complete(bot.request_shutdown(2.0))
                proc_.wait(timeout=3.0)
                step("shuts down when asked", True, f"exit code {proc_.returncode}")
            except Exception as exc:
                step("shuts down when asked", False, f"still running 3 s after Shutdown ({type(exc).__name__})")
    finally:
        bot.close()
        tmp.cleanup()
    return results


def replay_against(log: HandLog, seat: int, spec_text: str, decision_ms: int = 5000) -> tuple[list[str], int]:
    """Re-send ``seat``'s logged decision requests to a bot; list where it answers differently."""
    from arena.replay import replay

    spec = parse_bot_spec(spec_text)
    diffs: list[str] = []
    asked = 0
    with tempfile.TemporaryDirectory(prefix="mus-against-") as tmp:
        bot = RemoteBot(spec, Path(tmp), "against")
        bot.connect()
        try:
            loop = thread_loop()
            rules = Rules.from_mapping(dict(log.header.get("rules", {})))
            names = tuple(s.get("bot", "?") for s in log.header.get("seats", []))
            loop.run_until_complete(bot.start_match(MatchStartInfo(str(log.header.get("match_id")), seat, rules, names, decision_ms, 600_000)))
            for rh in replay(log, with_views=True):
                for st in rh.steps:
                    if st.seat != seat or st.view is None:
                        continue
                    asked += 1
                    try:
                        d = loop.run_until_complete(bot.decide(st.view, asked, DecisionTiming(decision_ms / 1000, 600.0)))
                        now = str(d.action) + (f" + seña {d.sena.name.lower()}" if isinstance(d.sena, Sena) else "")
                    except BotFault as exc:
                        now = f"FAULT {exc}"
                    logged = st.action + (f" + seña {st.sena}" if st.sena else "")
                    if now != logged and not (st.fault and now == logged):
                        diffs.append(f"hand {rh.number} step {st.index}: logged {logged!r}, now {now!r}")
        finally:
            bot.close()
    return diffs, asked
