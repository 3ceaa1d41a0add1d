"""Run a league: the schedule in parallel jobs, one hand log per match, resumable.

The output folder holds ``league.json`` (the configuration and seed), ``results.jsonl``
(one line per finished match, fsync'd as each match ends), ``logs/<match>.jsonl`` (hand
logs), ``bots/`` (each bot process's stdout and stderr) and, at the end,
``standings.json`` and ``standings.csv``. ``resume=True`` reads ``results.jsonl`` and
plays only the matches not in it; an interrupted match is replayed from its start with
the same seed, so nothing is counted twice.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from arena.league.config import LeagueConfig
from arena.league.runmatch import MatchOutcome, Seating, run_match
from arena.league.schedule import ScheduledMatch, schedule
from arena.league.standings import Standings, compute_standings
from arena.referee.eventloop import check_spin_us
from arena.referee.match import MatchConfig
from arena.remote.manifest import all_share_cpu

log = structlog.get_logger()


class LeagueError(RuntimeError):
    """A league that cannot run (output folder problems, a resume that does not match)."""


@dataclass
class LeagueRun:
    """What a league run produced."""

    out_dir: Path
    standings: Standings
    results: list[dict[str, Any]]
    played_now: int
    interrupted: bool = False


def _config_snapshot(config: LeagueConfig) -> dict[str, Any]:
    return {
        "name": config.name,
        "seed": config.seed,
        "matches_per_pairing": config.matches_per_pairing,
        "duplicate": config.duplicate,
        "rules": config.rules.to_mapping(),
        "time": {"decision_ms": config.decision_ms, "time_bank_ms": config.time_bank_ms, "max_faults": config.max_faults},
        "bot_cpus": str(config.bot_cpus),
        "spin_us": config.spin_us,
        "entries": [
            {"name": e.name, "pair": list(e.pair) if e.pair else None, "bot": getattr(e.spec, "name", None)}
            for e in config.entries
        ],
        "source": str(config.source) if config.source else None,
    }


def read_results(path: Path) -> list[dict[str, Any]]:
    """The finished matches in ``results.jsonl``. A torn last line (a kill during the
    write) is dropped and the file truncated after the last good line."""
    if not path.exists():
        return []
    good: list[dict[str, Any]] = []
    keep = 0
    with open(path, "rb") as f:
        data = f.read()
    for line in data.splitlines(keepends=True):
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            break
        if not line.endswith(b"\n") or not isinstance(rec, dict) or "match_id" not in rec:
            break
        good.append(rec)
        keep += len(line)
    if keep != len(data):
        with open(path, "r+b") as f:
            f.truncate(keep)
    return good


def prepare_output(out_dir: Path, config: LeagueConfig, resume: bool) -> list[dict[str, Any]]:
    """Create (or, resuming, check) the output folder; return the results already there.

    Raises:
        LeagueError: the folder exists and is not empty (without resume), cannot be
            written, or holds a different league (with resume).
    """
    snap = _config_snapshot(config)
    meta = out_dir / "league.json"
    if resume:
        if out_dir.exists() and not out_dir.is_dir():
            raise LeagueError(f"{out_dir}: exists and is not a folder")
        if not meta.exists():
            raise LeagueError(f"{out_dir}: nothing to resume (no league.json); run without --resume")
        try:
            old = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise LeagueError(f"{meta}: unreadable ({exc}); cannot resume") from None
        for key in ("seed", "matches_per_pairing", "duplicate", "rules", "entries", "time"):
            if old.get(key) != snap[key]:
                raise LeagueError(f"{out_dir}: the league file changed since the run started ({key} differs); cannot resume")
        return read_results(out_dir / "results.jsonl")
    if out_dir.exists() and not out_dir.is_dir():
        raise LeagueError(f"{out_dir}: exists and is not a folder; choose another --out")
    if out_dir.exists() and any(out_dir.iterdir()):
        raise LeagueError(f"{out_dir}: exists and is not empty; choose another --out, or add --resume to continue it")
    try:
        (out_dir / "logs").mkdir(parents=True, exist_ok=True)
        # Private to the arena's user: bots run as another user (run_as) cannot read the
        # seeds, the logs or the results of a league in progress.
        os.chmod(out_dir, 0o700)
        (out_dir / "bots").mkdir(exist_ok=True)
        tmp = meta.with_suffix(".tmp")
        tmp.write_text(json.dumps(snap, indent=2), encoding="utf-8")
        os.replace(tmp, meta)
    except OSError as exc:
        raise LeagueError(f"{out_dir}: cannot write: {exc.strerror or exc}") from None
    return []


def run_league(
    config: LeagueConfig,
    out_dir: Path,
    *,
    jobs: int | None = None,
    resume: bool = False,
    on_match: Callable[[MatchOutcome, int, int], None] | None = None,
    stop: threading.Event | None = None,
) -> LeagueRun:
    """Play every scheduled match not yet in ``results.jsonl``; write the standings.

    ``on_match(outcome, done, total)`` is called in this thread after each match is
    saved. Setting ``stop`` lets running matches finish and starts no new one.

    Raises:
        LeagueError: the output folder cannot be used (see :func:`prepare_output`), or
            the configuration's ``spin_us`` is invalid (before anything is written).
    """
    try:
        check_spin_us(config.spin_us)
    except ValueError as exc:
        raise LeagueError(f"spin_us: {exc}") from None
    done_results = prepare_output(out_dir, config, resume)
    done_ids = {r["match_id"] for r in done_results}
    matches = schedule(config)
    pending = [m for m in matches if m.match_id not in done_ids]
    results = list(done_results)
    total = len(matches)
    (out_dir / "logs").mkdir(parents=True, exist_ok=True)
    results_path = out_dir / "results.jsonl"
    stop = stop or threading.Event()
    played = 0
    jobs = max(1, jobs or config.jobs)
    # Each running match holds a slot; when its match is pinned (bot_cpus = "auto", or
    # "declared" with bots that share a CPU) the slot picks its CPUs, so matches played
    # at the same time never share one. "declared" is decided once for the whole league
    # (every entry's bots say share_cpu, or no match is pinned): a league whose matches
    # were pinned or not by who plays would let an unpinned match's processes run on a
    # pinned match's CPU, and would play some entries under other conditions than others.
    share_cpu = all_share_cpu([e.spec for e in config.entries if e.spec is not None])
    slots: queue.SimpleQueue[int] = queue.SimpleQueue()
    for slot in range(jobs):
        slots.put(slot)

    def play(m: ScheduledMatch) -> MatchOutcome:
        a0, a1 = config.bot_specs(m.team0)
        b0, b1 = config.bot_specs(m.team1)
        specs = (a0, b0, a1, b1)
        seating = Seating((m.team0, m.team1, m.team0, m.team1))
        mc = MatchConfig(
            rules=config.rules, seed=m.seed, match_id=m.match_id, decision_ms=config.decision_ms,
            time_bank_ms=config.time_bank_ms, max_faults=config.max_faults,
        )
        slot = slots.get()
        try:
            return run_match(specs, seating, mc, out_dir / "logs", bot_log_dir=out_dir / "bots",
                             placement=config.bot_cpus.for_slot(slot, jobs, bots_share_cpu=share_cpu),
                             spin_us=config.spin_us)
        finally:
            slots.put(slot)

    write_error = ""
    with open(results_path, "a", encoding="utf-8") as results_file, ThreadPoolExecutor(max_workers=jobs) as pool:
        to_play = list(pending)
        running: dict[Future[MatchOutcome], ScheduledMatch] = {}
        try:
            while to_play or running:
                while to_play and len(running) < jobs and not stop.is_set():
                    m = to_play.pop(0)
                    running[pool.submit(play, m)] = m
                if not running:
                    break
                finished, _ = wait(list(running), timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in finished:
                    m = running.pop(fut)
                    try:
                        outcome = fut.result()
                    except OSError as exc:
                        # A full disk or a failing device: every later match would fail too.
                        stop.set()
                        write_error = f"writing the log of {m.match_id} failed: {exc.strerror or exc}"
                        log.error("league.write_failed", match_id=m.match_id, error=str(exc))
                        continue
                    except Exception as exc:  # the runner must survive anything a match does
                        log.error("league.match_failed", match_id=m.match_id, error=repr(exc))
                        continue
                    rec = {"team0": m.team0, "team1": m.team1, "deal": m.deal, **outcome.to_json()}
                    line = json.dumps(rec, separators=(",", ":")) + "\n"
                    try:
                        results_file.write(line)
                        results_file.flush()
                        os.fsync(results_file.fileno())
                    except OSError as exc:
                        stop.set()
                        write_error = f"writing {results_path} failed: {exc.strerror or exc}"
                        log.error("league.write_failed", path=str(results_path), error=str(exc))
                        _truncate_torn_line(results_path)
                        continue
                    results.append(rec)
                    played += 1
                    log.info("league.match_finished", match_id=m.match_id, winner=outcome.result.winner_team,
                             reason=outcome.result.reason, hands=outcome.result.hands)
                    if on_match is not None:
                        on_match(outcome, len(results), total)
        except KeyboardInterrupt:
            stop.set()
            for fut in running:
                fut.cancel()
            raise
    if write_error:
        try:
            saved = len(read_results(results_path))
        except OSError:
            saved = len(results)
        raise LeagueError(
            f"{write_error}. The {saved} matches finished before are saved in {results_path}; "
            "free the space (or fix the device) and continue with --resume"
        )
    standings = write_standings(config, out_dir, results)
    return LeagueRun(out_dir, standings, results, played, interrupted=stop.is_set() and len(results) < total)


def _truncate_torn_line(path: Path) -> None:
    """Drop a partly written last line (a failed write), so the file stays valid JSON Lines."""
    try:
        read_results(path)
    except OSError:
        pass


def write_standings(config: LeagueConfig, out_dir: Path, results: list[dict[str, Any]]) -> Standings:
    """Compute the standings and write standings.json and standings.csv (atomically:
    a failed write leaves the previous file, never half a file).

    Raises:
        LeagueError: the files cannot be written.
    """
    names = [e.name for e in config.entries]
    members = {e.name: config.members(e.name) for e in config.entries}
    standings = compute_standings(names, members, results, seed=config.seed)
    for name, text in (("standings.json", json.dumps(standings.to_json(), indent=2)), ("standings.csv", standings.to_csv())):
        tmp = out_dir / (name + ".tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, out_dir / name)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise LeagueError(f"writing {out_dir / name} failed: {exc.strerror or exc}; the results are in results.jsonl") from None
    return standings
