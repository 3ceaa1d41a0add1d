"""A local league refereed in worker processes (issue 30): what the league promises holds
whatever ``--jobs`` is. Real leagues of real bot processes, small and seeded: the same
hand logs and standings with 1, 2 and 3 jobs; no process sees a deal twice; the secret
is in no worker's command line or environment; the folder's lock; a worker killed in a
match (the match played again, its bots gone); workers that keep dying (a clean stop
with --resume advice); SIGINT to the terminal's group (exit 130, --resume completes).
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from arena.league.config import load_league
from arena.league.procs_worker import worker_setup
from arena.league.runner import LeagueError, run_league
from arena.league.schedule import schedule
from arena.league.secret import LeagueSecret
from arena.records.handlog import untimed

REPO = Path(__file__).resolve().parents[2]
TEXT = f"""
name = "procs"
seed = {{seed}}
matches_per_pairing = {{matches}}
duplicate = {{duplicate}}
[rules]
target_points = {{target}}
games_to_win = 1
[[entry]]
name = "random"
bot = "{REPO / "bots" / "random"}"
[[entry]]
name = "rulebot"
bot = "{REPO / "bots" / "rulebot"}"
"""


def league_file(folder: Path, seed: int = 0x5EC12E7_0DDBA11_CAFE_F00D, duplicate: bool = True,
                matches: int = 4, target: int = 10) -> Path:
    path = folder / f"league-{'duplicate' if duplicate else 'plain'}-{matches}-{target}.toml"
    path.write_text(TEXT.format(seed=seed, duplicate=str(duplicate).lower(), matches=matches, target=target),
                    encoding="utf-8")
    return path


def logs(out: Path) -> dict[str, list[Any]]:
    """Each hand log, timing fields and the seats' process records left out (which job
    played which match, and which process, differs between runs)."""
    found: dict[str, list[Any]] = {}
    for path in sorted((out / "logs").glob("*.jsonl")):
        records = [untimed(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]
        for seat in records[0]["seats"]:
            seat.pop("process", None)
        found[path.name] = records
    return found


def workers_of(pid: int) -> list[int]:
    """The referee worker processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if int(stat[1]) == pid and b"arena.league.procs" in cmdline and stat[0] != "Z":
                found.append(int(entry))
    return found


def children_of(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.add(int(entry))
            except OSError:
                continue
    return found


def alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                out.add(pid)
        except OSError:
            pass
    return out


def gone_within(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive(pids)


class Killer:
    """On the first match recorded: check the folder's lock, then SIGKILL a worker in the
    middle of a match (its bots noted)."""

    def __init__(self, config: Any, out: Path) -> None:
        self.config, self.out = config, out
        self.bots: set[int] = set()
        self.lock_held = False

    def __call__(self, *_: object) -> None:
        if self.bots:
            return
        with pytest.raises(LeagueError, match="another league is running"):
            run_league(self.config, self.out, resume=True)
        self.lock_held = True
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # a worker whose match is under way: its bots are there
            for pid in workers_of(os.getpid()):
                bots = children_of(pid)
                if bots and len(list((self.out / "logs").glob("*.jsonl"))) > 1:
                    os.kill(pid, signal.SIGKILL)
                    self.bots = bots
                    return
            time.sleep(0.01)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[Any, Any]:
    """The duplicate league played with 1, 2 and 3 jobs, its secret checked in the
    workers' command lines and environments as it plays; with 2 jobs, a worker is
    killed in a match (:class:`Killer`)."""
    tmp = tmp_path_factory.mktemp("procs")
    config = load_league(league_file(tmp))
    out: dict[Any, Any] = {}
    seen: list[bytes] = []
    for jobs in (1, 2, 3):
        secrets: list[LeagueSecret] = []
        folder = tmp / f"jobs{jobs}"
        killer = Killer(config, folder)

        def look(*args: object, jobs: int = jobs, killer: Killer = killer) -> None:
            for pid in workers_of(os.getpid()):
                seen.append(Path(f"/proc/{pid}/cmdline").read_bytes() + Path(f"/proc/{pid}/environ").read_bytes())
            if jobs == 2:
                killer(*args)

        run = run_league(config, folder, jobs=jobs, on_secret=secrets.append, on_match=look)
        assert run.played_now == 4 and not run.failed
        out[jobs] = folder
        secret = secrets[0]
        for text in seen:
            for value in (f"{secret.seed:x}", str(secret.seed), secret.results_key.hex()):
                assert value.encode() not in text.lower()
        if jobs == 2:
            out["killer"] = killer
    assert seen, "no worker process was seen: the secret check checked nothing"
    return out


def test_the_same_hand_logs_and_standings_whatever_the_jobs(runs: dict[Any, Path]) -> None:
    """With 2 jobs a worker was killed in a match, which was played again from its start."""
    one = logs(runs[1])
    assert len(one) == 4
    for jobs in (2, 3):
        assert logs(runs[jobs]) == one, jobs
        assert (json.loads((runs[jobs] / "standings.json").read_text())
                == json.loads((runs[1] / "standings.json").read_text()))


def test_no_process_of_a_worker_sees_a_deal_twice(runs: dict[Any, Path]) -> None:
    """Duplicate deals: each deal is played twice. Every process (named by the seat it was
    started for) played each seed once, and with 3 jobs the matches were shared by
    several workers (each worker's pool started processes of its own)."""
    for jobs in (1, 3):
        seeds: dict[str, list[int]] = {}
        for path in (runs[jobs] / "logs").glob("*.jsonl"):
            header = json.loads(path.read_text().splitlines()[0])
            for seat in header["seats"]:
                seeds.setdefault(seat["process"]["first_seat"], []).append(header["seed"])
        assert all(len(s) == len(set(s)) for s in seeds.values()), seeds
        if jobs == 3:
            assert len(seeds) > 4, "one pool played every match: were there several workers?"


def test_the_workers_setup_holds_no_secret(tmp_path: Path) -> None:
    """What a worker is sent: the configuration without the user's seed."""
    seed = 0x5EC12E7_0DDBA11_CAFE
    config = load_league(league_file(tmp_path, seed=seed))
    assert config.seed == seed
    setup = worker_setup(config, tmp_path, True, 10, {"random": {1, 2}}, 2)
    data = pickle.dumps(setup)
    assert setup.config.seed is None and seed.to_bytes(9, "little") not in data and str(seed).encode() not in data


def test_a_worker_killed_in_a_match(runs: dict[Any, Any]) -> None:
    """SIGKILL of a worker while it plays (with 2 jobs): its bots die with it, and the
    league ended complete (the test above: the logs and standings of the other runs);
    the folder's lock held all along."""
    killer: Killer = runs["killer"]
    assert killer.lock_held and killer.bots, "no worker was killed"
    assert not gone_within(killer.bots, 5.0), "the killed worker's bots outlived it"


def test_workers_that_keep_dying_stop_the_league_with_resume_advice(tmp_path: Path) -> None:
    """Every worker killed as soon as it appears: the league stops (no standings) and says
    to continue with --resume; no worker is left."""
    config = load_league(league_file(tmp_path, duplicate=False))
    stop = threading.Event()
    kills: list[int] = []

    def killer() -> None:
        while not stop.is_set():
            for pid in workers_of(os.getpid()):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:  # it died since it was listed
                    continue
                kills.append(pid)
            time.sleep(0.005)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        with pytest.raises(LeagueError, match=r"referee worker.*continue with --resume"):
            run_league(config, tmp_path / "out", jobs=2)
    finally:
        stop.set()
        thread.join()
    assert len(kills) >= 3
    assert not workers_of(os.getpid())
    assert not (tmp_path / "out" / "standings.json").exists()


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_sigint_to_the_terminals_group_stops_cleanly_and_resumes(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole foreground group: exit 130 with the resume command, no
    worker and no bot left; --resume completes the league as an uninterrupted run.

    Twelve matches to 30, and Ctrl-C the moment the first is recorded (the processes are
    listed by a thread of their own, since scanning /proc on a crowded machine is slow),
    so that most of the league is still to play when the signal comes."""
    path = league_file(tmp_path, matches=12, target=30)
    reference = tmp_path / "reference"
    run_league(load_league(path), reference, jobs=1)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "arena", "league", str(path), "--out", str(out), "--no-progress", "--jobs", "2"]
    # Ctrl-C as at a terminal: SIGINT at its default in the child, even when this test
    # runs in a background job (a shell without job control starts those with SIGINT
    # ignored, and a process that inherits it ignored rightly never sees Ctrl-C).
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_default_sigint)
    seen: set[int] = set()
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            for worker in workers_of(proc.pid):
                seen.update({worker, *children_of(worker)})
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        deadline = time.monotonic() + 120
        while not (out / "results.jsonl").exists() or not (out / "results.jsonl").read_text():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.005)
        os.killpg(proc.pid, signal.SIGINT)
        stop.set()
        watcher.join()
        _, stderr = proc.communicate(timeout=60)
    finally:
        stop.set()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert f"--out {out} --resume" in stderr and "Traceback" not in stderr
    assert len(seen) > 2 and not gone_within(seen, 5.0)
    done = subprocess.run([*cmd, "--resume"], cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert sorted(json.loads(line)["match_id"] for line in (out / "results.jsonl").read_text().splitlines()) == \
        sorted(m.match_id for m in schedule(load_league(path)))
    assert logs(out) == logs(reference)


def test_jobs_default_to_the_cpus_and_more_warn_once() -> None:
    """One match per CPU the arena may use; more jobs are played, with one warning."""
    from structlog.testing import capture_logs

    from arena.runtime.cpus import default_jobs, league_jobs, process_cpus

    assert default_jobs() == process_cpus() and default_jobs(16) == 16 and default_jobs(1) == 1
    with capture_logs() as events:
        assert league_jobs(None, 3) == 3 and league_jobs(2, 3) == 2
        assert league_jobs(97, 3) == 97 and league_jobs(97, 3) == 97
    assert [e["event"] for e in events] == ["league.jobs_above_cpus"], events
    assert "may use 3 CPUs" in events[0]["detail"]
