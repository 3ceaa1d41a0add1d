"""Leagues on a real Ray cluster of this one machine (issue 20): a head that plays nothing
and two worker nodes (``ray.cluster_utils.Cluster``), loopback only, no dashboard, no
usage reports. One cluster serves the module; the league is small (random against
rulebot, duplicate deals, one game to 10), so the module stays around a minute.

What is checked: a league on the cluster gives the hand logs, results and standings of
the same league run locally, and no task carries the league's secret or results key; a
worker node killed while it plays a match has the match played again elsewhere and
every match counted once; a driver killed with SIGKILL continues with ``--resume`` to the
local run's standings (through Ray Client, ``--ray`` taking its address from
``$RAY_ADDRESS``); a node that cannot run a bot stops the league, naming what it
lacks, instead of forfeiting the bot's matches.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.league import cluster as cluster_mod
from arena.league import cluster_executor
from arena.league.cluster_worker import MatchTask
from arena.league.config import ClusterConfig, LeagueConfig, load_league
from arena.league.executor import ClusterStatus
from arena.league.results_file import LeagueError
from arena.league.runner import LeagueRun, read_results, run_league
from arena.league.secret import read_secret
from arena.records.handlog import untimed

REPO = Path(__file__).resolve().parents[2]
MUS = [sys.executable, "-m", "arena"]
HERE = Path(__file__).resolve().parent

# Loopback only (every node and the driver at 127.0.0.1), and nothing sent to Ray's makers.
RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
NODE_CPUS = 5
"""Declared CPUs of a worker node: one match of four bots and a referee at a time (the
machine has two cores; Ray only counts what nodes declare)."""


def league_file(tmp: Path, *, extra: str = "", entries: str = "") -> Path:
    path = tmp / "league.toml"
    path.write_text(f"""
name = "cluster"
matches_per_pairing = 6
duplicate = true
{extra}
[rules]
target_points = 10
games_to_win = 1
[[entry]]
name = "random"
bot = "{REPO / "bots" / "random"}"
[[entry]]
name = "rulebot"
bot = "{REPO / "bots" / "rulebot"}"
{entries}
""", encoding="utf-8")
    return path


def logs(out: Path) -> dict[str, list[Any]]:
    """Each hand log without its timing fields, nor how each seat's process was obtained
    (which depends on which worker played which match before)."""
    found: dict[str, list[Any]] = {}
    for p in sorted((out / "logs").glob("*.jsonl")):
        records = [untimed(json.loads(line)) for line in p.read_text(encoding="utf-8").splitlines()]
        for seat in records[0]["seats"]:
            seat.pop("process", None)
        found[p.name] = records
    return found


def results(out: Path) -> dict[str, Any]:
    recs = read_results(out / "results.jsonl")
    ids = [r["match_id"] for r in recs]
    assert len(ids) == len(set(ids)), f"a match recorded twice: {ids}"
    return {r["match_id"]: untimed(r) for r in recs}


def _client_port() -> int:
    """A free port for Ray Client (the head's client server), outside the range the
    kernel hands out for port 0: the head takes its own ports from there, and a port
    found free by binding port 0 and released is the one the next such bind gets (seen
    in CI: the GCS took the client server's port, which then failed to start). Ray's
    workers use 10002-19999."""
    rng = random.Random()
    for _ in range(100):
        port = rng.randrange(20000, 30000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port in 20000-29999")


class HostedCluster:
    """A cluster run by ``cluster_host.py`` in a process of its own (why: its docstring)."""

    def __init__(self, nodes: int, cpus: int) -> None:
        self.client_port = _client_port()
        self.proc = subprocess.Popen([sys.executable, str(HERE / "cluster_host.py"), str(nodes), str(cpus),
                                      str(self.client_port)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env={**os.environ, **RAY_ENV})
        assert self.proc.stdout is not None and self.proc.stdin is not None
        line = self.proc.stdout.readline()
        assert line, "the cluster did not start (its host's stderr is above)"
        info = json.loads(line)
        self.address: str = info["address"]
        self.workers: list[dict[str, Any]] = info["workers"]

    def kill(self, raylet_socket: str) -> None:
        """Kill the worker node with that raylet socket at once."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"kill {raylet_socket}\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "killed"

    def shutdown(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[HostedCluster]:
    saved = {k: os.environ.get(k) for k in RAY_ENV}
    os.environ.update(RAY_ENV)
    ray = cluster_mod.import_ray()
    c = HostedCluster(2, NODE_CPUS)
    try:
        # One connection for the module, made as the arena makes its own (the code shipped
        # as a job's runtime environment); run_league uses it and leaves it open.
        cluster_mod._connect(ray, c.address, ship_code=True)
        yield c
    finally:
        ray.shutdown()
        c.shutdown()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def on_cluster(config: LeagueConfig, address: str) -> LeagueConfig:
    return replace(config, cluster=ClusterConfig(address=address))


@pytest.fixture(scope="module")
def ray_run(ray_cluster: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[LeagueConfig, Path, LeagueRun,
                                                                                  list[bytes], list[ClusterStatus]]:
    """The league on the cluster, its secret drawn as in a competition; every task it
    sent (pickled, as Ray ships it) and the progress it reported."""
    tmp = tmp_path_factory.mktemp("ray")
    # A ceiling of the league file's: the workers must apply it, not the manifest they unpack.
    config = load_league(league_file(tmp, extra="[limits]\nmemory_mb = 6000"))
    sent: list[bytes] = []
    statuses: list[ClusterStatus] = []
    out = tmp / "out"
    with spying(sent):
        run = run_league(on_cluster(config, ray_cluster.address), out, on_cluster=statuses.append)
    return config, out, run, sent, statuses


@contextlib.contextmanager
def spying(sent: list[bytes]) -> Iterator[None]:
    """Every task a RayExecutor sends, pickled (as Ray ships it), appended to ``sent``."""
    made = cluster_executor.RayExecutor.__init__

    def recording(self: cluster_executor.RayExecutor, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        remote = self.remote

        class Spy:
            def remote(self, task: MatchTask, refs: list[Any]) -> Any:
                sent.append(pickle.dumps(task))
                return remote.remote(task, refs)

        self.remote = Spy()

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cluster_executor.RayExecutor, "__init__", recording)
        yield


@pytest.fixture(scope="module")
def local_run(ray_run: tuple[LeagueConfig, Path, LeagueRun, list[bytes], list[ClusterStatus]],
              tmp_path_factory: pytest.TempPathFactory) -> tuple[LeagueConfig, Path, LeagueRun]:
    """The same league (the cluster run's secret given as its seed) played on this
    machine's threads: what the cluster must reproduce."""
    tmp = tmp_path_factory.mktemp("local")
    config = replace(ray_run[0], seed=read_secret(ray_run[1]).seed)
    out = tmp / "out"
    return config, out, run_league(config, out, jobs=2)


def test_a_league_on_the_cluster_gives_the_local_logs_and_standings(
        ray_run: tuple[LeagueConfig, Path, LeagueRun, list[bytes], list[ClusterStatus]],
        local_run: tuple[LeagueConfig, Path, LeagueRun]) -> None:
    """Same seed and bots: the same hand logs (timings aside), results and standings; the
    matches are spread over both nodes; each task carries its own match's seed and
    nothing of the secret."""
    _, out, run, sent, statuses = ray_run
    config, local_out, local = local_run
    assert not run.interrupted and run.played_now == len(local.results) == 6
    assert logs(out) == logs(local_out)
    assert results(out) == results(local_out)
    assert run.standings.to_json() == local.standings.to_json()
    assert json.loads((out / "standings.json").read_text()) == json.loads((local_out / "standings.json").read_text())
    assert max(s.nodes for s in statuses) == 2 and max(s.running for s in statuses) >= 2, statuses
    # The secret stays with the driver: a task holds its match's seed, never the league's
    # seed nor the results key (in any form pickle would carry them).
    secret = read_secret(out)
    assert len(sent) == 6
    for blob in sent:
        task = pickle.loads(blob)
        assert task.match.seed in {m.seed for m in _schedule(config)}
        assert [limits.memory_mb for limits, _env in task.terms] == [6000] * len(task.bundles)
        assert secret.results_key not in blob and secret.results_key.hex().encode() not in blob
        assert secret.seed.bit_length() > 100  # drawn, not given
        for form in (secret.seed.to_bytes(16, "big"), secret.seed.to_bytes(17, "little").rstrip(b"\0")):
            assert form not in blob
        assert str(secret.seed).encode() not in blob and hex(secret.seed).encode() not in blob


def test_matches_run_at_the_nodes_normal_priority(ray_cluster: Any) -> None:
    """Ray starts workers at niceness 15; the league's job asks for 0, so that a match's
    referee and bots are not starved by the node's other work (they would play slower
    than locally, or time out). Niceness is inherited: the bots get the worker's."""
    import ray

    def niceness() -> tuple[int, int]:  # defined here: shipped by value, not by module
        import os as os_
        import subprocess as sp
        import sys as sys_

        child = sp.run([sys_.executable, "-c", "import os; print(os.nice(0))"], capture_output=True, text=True,
                       check=True)
        return os_.nice(0), int(child.stdout)

    assert ray.get(ray.remote(niceness).options(num_cpus=0).remote(), timeout=120) == (0, 0)


def _schedule(config: LeagueConfig) -> list[Any]:
    from arena.league.schedule import schedule

    return schedule(config)


def test_a_killed_driver_resumes_on_the_cluster(ray_cluster: Any, local_run: tuple[LeagueConfig, Path, LeagueRun],
                                                tmp_path: Path) -> None:
    """``mus league --ray ADDRESS`` killed with SIGKILL after its first result, then
    ``--resume --ray`` without an address, ``$RAY_ADDRESS`` naming the same cluster through
    Ray Client (``ray://``): every match once, and the local run's results and
    standings."""
    config, local_out, _ = local_run
    path = league_file(tmp_path, extra=f'seed = "{hex(config.seed or 0)}"')
    out = tmp_path / "out"
    env = {**os.environ, **RAY_ENV}
    cmd = [*MUS, "league", str(path), "--out", str(out), "--ray", ray_cluster.address, "--no-progress"]
    driver = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO)
    deadline = time.monotonic() + 60
    try:
        while not (out / "results.jsonl").exists() or not (out / "results.jsonl").read_text().strip():
            assert driver.poll() is None, driver.stderr.read().decode() if driver.stderr else ""
            assert time.monotonic() < deadline, "no match finished in 60 s"
            time.sleep(0.05)
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    saved = len(read_results(out / "results.jsonl"))
    assert 1 <= saved < 6, f"{saved} matches saved before the kill: the test kills nothing"
    resume = [*MUS, "league", str(path), "--out", str(out), "--no-progress", "--resume", "--ray"]
    client = {**env, "RAY_ADDRESS": f"ray://127.0.0.1:{ray_cluster.client_port}"}
    done = subprocess.run(resume, env=client, capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    # The default sandbox on a cluster is said to be no place for a competition.
    assert "warning: on a cluster the default sandbox lets a bot reach Ray's ports" in done.stderr
    assert results(out) == results(local_out)
    assert logs(out) == logs(local_out)
    assert json.loads((out / "standings.json").read_text()) == json.loads((local_out / "standings.json").read_text())


def test_a_node_that_cannot_run_a_bot_stops_the_league(ray_cluster: Any, tmp_path: Path) -> None:
    """A bot whose program the worker lacks is not made to forfeit: the league stops with
    what the node lacks and how to continue; its matches are not recorded."""
    bot = tmp_path / "needs-tool"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "needs-tool"\ncommand = ["mus-arena-no-such-program-20"]\n', encoding="utf-8")
    path = tmp_path / "tool.toml"
    path.write_text(f'seed = 1\n[[entry]]\nname = "random"\nbot = "{REPO / "bots" / "random"}"\n'
                    f'[[entry]]\nname = "tool"\nbot = "{bot}"\n', encoding="utf-8")
    config = on_cluster(load_league(path), ray_cluster.address)
    with pytest.raises(LeagueError) as err:
        run_league(config, tmp_path / "out")
    msg = str(err.value)
    assert "cannot run bot needs-tool (entry tool)" in msg and "mus-arena-no-such-program-20" in msg, msg
    assert "not on the PATH" in msg and "--resume" in msg, msg
    recorded = read_results(tmp_path / "out" / "results.jsonl")
    assert all("tool" not in (r["team0"], r["team1"]) for r in recorded), recorded


def _bots_below(pid: int) -> list[int]:
    """Bot processes (running, not frozen in a pool) below ``pid``."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            kids = [int(k) for t in os.listdir(f"/proc/{parent}/task")
                    for k in open(f"/proc/{parent}/task/{t}/children").read().split()]
        except OSError:
            continue
        for kid in kids:
            try:
                cmdline = open(f"/proc/{kid}/cmdline", "rb").read()
                state = open(f"/proc/{kid}/stat").read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if b"bot.py" in cmdline and state != "T":
                found.append(kid)
            todo.append(kid)
    return found


def test_a_worker_node_killed_mid_match_loses_nothing(ray_cluster: HostedCluster,
                                                      local_run: tuple[LeagueConfig, Path, LeagueRun],
                                                      tmp_path: Path) -> None:
    """A worker node is killed (SIGKILL to its raylet and workers) while its bots play a
    match: the match is played again on the other node, every match is recorded exactly
    once, with the local run's results and standings. A bot process running (not frozen
    in a pool) under the node means a match in progress there. Last of the module: it
    leaves one worker node."""
    config, local_out, _ = local_run
    config = on_cluster(config, ray_cluster.address)
    import ray

    driver_raylet = ray._private.worker.global_worker.node._raylet_socket_name
    victim = next(w for w in ray_cluster.workers if w["raylet_socket"] != driver_raylet)
    raylet_pid = victim["raylet_pid"]
    killed: list[list[int]] = []

    def kill_when_playing() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            bots = _bots_below(raylet_pid)
            if bots:
                killed.append(bots)
                ray_cluster.kill(victim["raylet_socket"])
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_when_playing)
    killer.start()
    out = tmp_path / "out"
    run = run_league(config, out)
    killer.join()
    assert killed, "no match was seen playing on the node: the test kills nothing"
    assert not run.interrupted and len(run.results) == 6
    assert results(out) == results(local_out)
    assert logs(out) == logs(local_out)
    assert json.loads((out / "standings.json").read_text()) == json.loads((local_out / "standings.json").read_text())
    time.sleep(0.5)
    for pid in killed[0]:
        assert not Path(f"/proc/{pid}").exists() or "Z" in open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1][:3], \
            f"bot {pid} outlived its node"


LADDER_SETTINGS = """
duplicate = true
{seed}
[rules]
target_points = 10
games_to_win = 1
[sandbox]
mode = "default"
"""


def _ladder(folder: Path, seed: int | None = None) -> Path:
    """A ladder of random and rulebot, nothing played (a drawn secret, or ``seed``)."""
    from arena.ladder.folder import add_version, create_ladder

    folder.mkdir()
    settings = folder / "ladder.toml"
    settings.write_text(LADDER_SETTINGS.format(seed="" if seed is None else f"seed = {seed}"), encoding="utf-8")
    ladder = create_ladder(folder / "ladder", settings, "")
    try:
        for entry in ("random", "rulebot"):
            add_version(ladder, entry, REPO / "bots" / entry)
    finally:
        ladder.close()
    return folder / "ladder"


def _ladder_records(ladder: Path) -> dict[str, Any]:
    import sqlite3

    con = sqlite3.connect(f"file:{ladder / 'ladder.sqlite'}?mode=ro", uri=True)
    try:
        rows = {str(r[0]): untimed(json.loads(r[1])) for r in con.execute("SELECT match_id, record FROM matches")}
    finally:
        con.close()
    # Bound to its own ladder (its id, the MAC) and to the order the matches came back in.
    return {k: {f: v for f, v in rec.items() if f not in ("league", "mac", "seq")} for k, rec in rows.items()}


def test_a_ladder_on_the_cluster_plays_as_on_this_machine(ray_cluster: HostedCluster, tmp_path: Path) -> None:
    """``mus ladder run --ray`` (issue 33): the ladder's matches as Ray tasks give the hand
    logs and results of the same ladder run locally; no task carries its secret."""
    from arena.ladder.runner import Limits, run_ladder

    on_ray = _ladder(tmp_path / "ray")
    sent: list[bytes] = []
    with spying(sent):
        run = run_ladder(on_ray, Limits(matches=4), ray=ray_cluster.address)
    assert run.played == 4 and len(sent) == 4 and not run.failed
    secret = read_secret(on_ray)
    assert not secret.given
    for blob in sent:
        assert secret.results_key not in blob and secret.results_key.hex().encode() not in blob
        assert str(secret.seed).encode() not in blob and hex(secret.seed).encode() not in blob

    local = _ladder(tmp_path / "local", seed=secret.seed)  # the same secret seed: the same matches and deals
    assert run_ladder(local, Limits(matches=4), jobs=1).played == 4
    assert _ladder_records(on_ray) == _ladder_records(local)
    assert logs(on_ray) == logs(local)
