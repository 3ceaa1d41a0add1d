"""The adversarial zoo (tests/adversarial/bots/zoo): one test per misbehaviour, each
asserting its documented outcome (docs/reliability.md). In every test the referee
returns a result (``play`` checks the hand log is whole: every fault of a finished hand
is in its record), and the ``spawn`` fixture fails the test if any process of it is left
behind. The faults already covered by tests/remote/test_remote_faults.py are not
repeated here."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from adversarial_helpers import (
    MAX_FAULTS,
    TAG_ENV,
    TRIVIAL_BOT,
    ZOO,
    MiB,
    RssSampler,
    assert_completed,
    assert_forfeit,
    wait_for,
)
from mus.v1 import game_pb2
from remote_helpers import close_all, config, manifest, pid_alive, play, tagged_pids, wait_gone

from arena.referee.player import FaultKind
from arena.remote.manifest import Limits
from arena.remote.output import LOG_CAP_BYTES
from arena.remote.process import BotStartError
from arena.remote.sandbox import protections
from arena.remote.wrappers import BASE_ENV
from arena.runner.match import Seating, run_match
from arena.runner.pool import ProcessPool

ARENA_RSS_LIMIT = 50 * MiB


def log_text(bot, stream: str) -> str:  # type: ignore[no-untyped-def]
    return (bot.log_dir / f"{bot.label}.{stream}.log").read_text(errors="replace")


# --------------------------------------------------------------------------- the end of a match


@pytest.mark.parametrize(("mode", "code"), [("crash_match_end", 5), ("crash_last_hand", 6)])
def test_crash_at_match_end_leaves_the_result_standing(spawn, pool, mode: str, code: int) -> None:
    """A bot that dies reading the match end (its on_match_end), or right after the last
    hand (before the match end reaches it): the completed match stands, with no fault;
    closing it is quick and raises nothing."""
    bot = spawn(mode)
    played = play(pool.table(bot, 1), config())
    assert_completed(played)
    assert bot.process.proc.wait(2) == code
    t0 = time.monotonic()
    bot.close()
    assert time.monotonic() - t0 < 1.0
    assert "zoo[" in log_text(bot, "stderr")


# --------------------------------------------------------------------------- start


@pytest.mark.parametrize("mode", ["wrong_address_tcp", "wrong_address_unix"])
def test_wrong_address_is_a_start_error(spawn, mode: str) -> None:
    """It announces a TCP port nobody listens on (or a socket in its socket directory
    that nobody made): the arena's GetInfo probe fails (for the missing socket, the
    arena's check before connecting), a BotStartError names the address and quotes the
    bot's stderr, and the process is stopped. (In a league its team forfeits the match.)"""
    bot = spawn(mode, connect=False)
    t0 = time.monotonic()
    with pytest.raises(BotStartError) as err:
        bot.connect(info_timeout_s=1.0)
    message = str(err.value)
    if mode == "wrong_address_tcp":
        assert "does not answer GetInfo" in message and bot.process.target in message
    else:
        assert "zoo-nobody-listens" in message and "no socket at" in message
    assert "announced a" in message and "where nobody listens" in message  # its stderr
    assert not bot.process.alive()
    assert time.monotonic() - t0 < 6


# --------------------------------------------------------------------------- the stream


@pytest.mark.parametrize(
    ("mode", "detail"),
    [
        ("end_stream", "the bot closed the stream"),
        ("abort_stream", "stream broken: UNAVAILABLE zoo: going away"),
        ("restart_server", "stream broken: "),
    ],
)
def test_breaking_the_stream_is_a_crash(spawn, pool, mode: str, detail: str) -> None:
    """Ending its side of the stream, aborting it, or stopping its server and serving
    again on the same port ("reconnecting"): the arena never reopens a match's stream, so
    every later request is a CRASH at once (no deadline waited) and the seat forfeits."""
    bot = spawn(mode, MUS_ZOO_AT="3")
    played = play(pool.table(bot, 2), config(decision_ms=1000))
    assert_forfeit(played, 2, FaultKind.CRASH)
    assert all(detail in f.detail for f in played.result.faults), played.result.faults
    assert played.result.seats[2].max_decision_s < 0.5
    assert bot.process.alive()  # the process lives on; only its stream is gone
    if mode == "restart_server":
        wait_for(lambda: log_text(bot, "stdout").count("|grpc") == 1, 3, "the second announce line")
    t0 = time.monotonic()
    bot.close()
    assert time.monotonic() - t0 < 4


def test_a_second_server_is_ignored(spawn, pool) -> None:
    """A bot that opens a second server and announces it: the arena keeps the first
    address (later stdout lines only go to the log); the match is unaffected."""
    bot = spawn("second_server")
    played = play(pool.table(bot, 0), config())
    assert_completed(played)
    assert "|grpc" in log_text(bot, "stdout")  # the second announce, logged and ignored


# --------------------------------------------------------------------------- output


def test_flood_of_300_mib_is_drained_and_capped(spawn, pool) -> None:
    """300 MiB on stdout (one endless line) and 300 MiB on stderr (1 KiB lines), written
    during the match: the match completes without fault, both streams are drained to
    the end, each log file stops at LOG_CAP_BYTES, and the arena's memory stays flat."""
    flood = 300 * MiB
    t0 = time.monotonic()
    with RssSampler() as rss:
        bot = spawn("flood", MUS_ZOO_FLOOD_MB="300")
        played = play(pool.table(bot, 3), config(decision_ms=2000))
        # A generous bound (a hang, not slowness, is what fails): 1.5 s on a quiet
        # machine, 20 s with both CPUs busy, over 30 s seen with the load at 30.
        wait_for(lambda: bot.process.stdout_bytes >= flood and bot.process.stderr_bytes >= flood, 150,
                 "the flood to be drained")
        close_all([bot])
    elapsed = time.monotonic() - t0
    assert_completed(played)
    assert (bot.process.stdout_bytes, bot.process.stderr_bytes) == (flood, flood)
    for stream in ("stdout", "stderr"):
        assert (bot.log_dir / f"{bot.label}.{stream}.log").stat().st_size == LOG_CAP_BYTES
    assert len(bot.process.stderr_tail()) == 20 and all(len(line) <= 300 for line in bot.process.stderr_tail())
    print(f"flood: 2 x 300 MiB drained in {elapsed:.2f} s; arena RSS {rss.start / MiB:.0f} MiB, "
          f"peak growth {rss.growth / MiB:.1f} MiB")
    assert rss.growth < ARENA_RSS_LIMIT
    assert elapsed < 180  # the match and the drain: no stream blocked


# --------------------------------------------------------------------------- signals


def test_bot_ignoring_sigterm_and_shutdown_is_killed(spawn, pool) -> None:
    """SIGTERM ignored and a Shutdown handler that never returns: Shutdown times out
    (1 s), SIGTERM follows at once (a bot that did not answer Shutdown gets no grace
    period: it was 2 s) and does nothing (1 s), SIGKILL ends it."""
    bot = spawn("ignore_sigterm")
    played = play(pool.table(bot, 1), config())
    assert_completed(played)
    t0 = time.monotonic()
    bot.close()
    took = time.monotonic() - t0
    assert bot.process.proc.returncode == -signal.SIGKILL
    assert 1.8 < took < 4.5, took
    assert "Shutdown? no." in log_text(bot, "stderr")


def test_a_pool_stops_bots_that_ignore_sigterm_side_by_side(tag: str, log_dir: Path) -> None:
    """A hostile entry's processes, each ignoring Shutdown and SIGTERM (2 s to kill), in
    a league's process pool: four replaced after a faulty match, then four kept and
    stopped at the league's end. Each batch is stopped at once, in about one bot's 2 s;
    one after the other, as before, a batch took 16 s (4 s each), and a league with such
    an entry waited that long after each of its matches and at its end."""
    spec = manifest(ZOO, tag, MUS_ZOO_MODE="ignore_sigterm")
    pool = ProcessPool(log_dir)
    try:
        for fault in ("it faulted in the match (timeout)", None):
            leases = [pool.acquire("zoo", spec, seed, f"zoo{seed}") for seed in range(4)]
            for lease in leases:
                lease.bot.connect()
            t0 = time.monotonic()
            pool.release_all([(lease, fault) for lease in leases])
            if fault is None:
                assert pool.idle() == 4  # kept (frozen) after a clean match
                t0 = time.monotonic()
                pool.close()
            took = time.monotonic() - t0
            assert [lease.bot.process.proc.returncode for lease in leases] == [-signal.SIGKILL] * 4, fault
            assert 1.8 < took < 6.0, (fault, took)
            assert all("Shutdown? no." in log_text(lease.bot, "stderr") for lease in leases)
    finally:
        pool.close()
    assert wait_gone(tag, timeout_s=3.0) == []


# --------------------------------------------------------------------------- resources


def test_memory_hog_is_stopped_by_its_limit(spawn, pool) -> None:
    """Allocating without bound under ``[limits] memory_mb = 400`` (RLIMIT_AS): the
    allocation fails with MemoryError inside the bot long before the machine suffers;
    the error escapes the bot's Play handler, gRPC ends the stream (CRASH) and the seat
    forfeits. The arena's memory does not move."""
    with RssSampler() as rss:
        bot = spawn("memory_hog", MUS_ZOO_AT="2", limits={"memory_mb": 400})
        played = play(pool.table(bot, 1), config(decision_ms=2000))
        close_all([bot])
    assert_forfeit(played, 1, FaultKind.CRASH)
    stderr = log_text(bot, "stderr")
    assert "MemoryError after" in stderr  # (gRPC logs the escaped error to a NullHandler)
    peak_kb = int(stderr.split("peak rss ")[-1].split()[0])
    print(f"memory hog: bot peak RSS {peak_kb / 1024:.0f} MiB under a 400 MiB address-space limit; "
          f"arena RSS growth {rss.growth / MiB:.1f} MiB")
    assert peak_kb < 400 * 1024
    assert rss.growth < ARENA_RSS_LIMIT


def test_memory_hog_in_an_sdk_bot_is_a_bot_error(spawn, pool) -> None:
    """The same hog in a Python SDK bot's decide(): the SDK catches the MemoryError,
    prints it and answers that it failed (a BotError): BOT_ERROR faults, then forfeit."""
    bot = spawn("memory_hog_sdk", MUS_ZOO_AT="2", limits={"memory_mb": 400})
    played = play(pool.table(bot, 3), config())
    assert_forfeit(played, 3, FaultKind.BOT_ERROR)
    assert all(f.detail.startswith("MemoryError\n") and "in hog" in f.detail for f in played.result.faults)
    close_all([bot])
    assert "MemoryError" in log_text(bot, "stderr")


def test_cpu_burner_times_out(spawn, pool) -> None:
    """A busy loop inside decide: TIMEOUT faults (each request waits its deadline), then
    forfeit; the bot still answers Shutdown (other gRPC threads run) and exits."""
    bot = spawn("cpu_burn", MUS_ZOO_AT="2")
    played = play(pool.table(bot, 0), config())
    assert_forfeit(played, 0, FaultKind.TIMEOUT)
    assert all("no answer within 300 ms" in f.detail for f in played.result.faults)
    t0 = time.monotonic()
    bot.close()
    assert time.monotonic() - t0 < 4


def test_cpu_burner_is_killed_by_its_cpu_limit(spawn, pool) -> None:
    """The same busy loop under ``[limits] cpu_seconds = 2`` (RLIMIT_CPU) and a 60 s
    deadline: the kernel kills the bot when its CPU time reaches 2 s, long before the
    deadline (also on a loaded machine, where 2 s of CPU take longer than 2 s): a CRASH
    fault, and at once the next ones, then forfeit. prlimit sets the soft and the hard
    limit to the same value, and at the hard limit the kernel sends SIGKILL (not SIGXCPU,
    which it sends only at a soft limit below the hard one)."""
    bot = spawn("cpu_burn", MUS_ZOO_AT="1", limits={"cpu_seconds": 2})
    t0 = time.monotonic()
    played = play(pool.table(bot, 2), config(decision_ms=60_000))
    assert_forfeit(played, 2, FaultKind.CRASH)
    assert time.monotonic() - t0 < 30
    # Killed by SIGKILL; in a pid namespace the arena's child is the `unshare` wrapper,
    # which reports its child's death by that signal as exit status 1.
    assert bot.process.proc.wait(1) in ((-signal.SIGKILL, 1) if _pid_namespaces_here() else (-signal.SIGKILL,))
    # The stream may break before the dead process is reaped (in a pid namespace the
    # wrapper exits a moment after the bot): a fault names the exit once it is known, and
    # then with the right code.
    codes = ("-9", "1") if _pid_namespaces_here() else ("-9",)
    named = [f.detail for f in played.result.faults if "process exited with code" in f.detail]
    assert all(any(f"process exited with code {c};" in d for c in codes) for d in named), played.result.faults


# --------------------------------------------------------------------------- the other seats


def test_a_bot_can_query_the_other_bots(spawn) -> None:
    """WEAKNESS (docs/reliability.md): with TCP on loopback, a bot of the same user finds
    the other bots' ports (``/proc/net/tcp`` and ``/proc/*/fd``), and may call them: each
    answers GetInfo and, on a second Play stream, decides on cards it is shown. The
    victims here keep no state, so the arena's match is unaffected; a bot that keeps
    per-match state would have it reset by the intruder's match start."""
    prober = spawn("probe")
    others = [spawn(path=TRIVIAL_BOT, label=f"victim{i}") for i in range(3)]
    played = play([prober, *others], config())
    assert_completed(played)
    found = json.loads(next(Path(prober.process.manifest.env["MUS_ZOO_OUT"]).glob("probe-*.json")).read_text())
    # A bot found may be the process the arena started or, in a pid namespace, its child.
    started = {b.process.pid for b in others}
    assert sorted(p if p in started else _host_ppid(p) for p in (r["pid"] for r in found)) == sorted(started)
    assert all(r["name"] == "trivial" and r["answered"] > 0 and r["action"] in ("no_mus", "paso", "no_quiero")
               for r in found), found


def _host_ppid(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="utf-8") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("PPid:"))


@pytest.mark.parametrize("attack", ["shutdown", "sigkill"])
def test_a_bot_can_stop_its_opponents(spawn, attack: str) -> None:
    """WEAKNESS (docs/reliability.md): a team of two saboteurs calls Shutdown on every
    other bot it finds on loopback (or sends it SIGKILL: same user) at its first
    decision. The referee copes (CRASH faults, a defined result), but the result is the
    saboteurs' win by the opponents' forfeit."""
    seats = [
        spawn("sabotage", MUS_ZOO_ATTACK=attack, label="s0"),
        spawn(path=TRIVIAL_BOT, label="s1"),
        spawn("sabotage", MUS_ZOO_ATTACK=attack, label="s2"),
        spawn(path=TRIVIAL_BOT, label="s3"),
    ]
    played = play(seats, config(decision_ms=3000))
    r = played.result
    if attack == "sigkill" and _pid_namespaces_here():
        # Each bot in its own pid namespace cannot name a process outside it: kill() fails.
        assert r.reason.value == "completed" and not r.faults, (r.reason, r.detail)
        return
    assert r.reason.value == "forfeit" and r.winner_team == 0, (r.reason, r.detail)
    assert r.faults and all(f.seat in (1, 3) and f.kind is FaultKind.CRASH for f in r.faults)
    assert max(sum(f.seat == s for f in r.faults) for s in (1, 3)) == MAX_FAULTS
    assert not seats[1].process.alive() and not seats[3].process.alive()


def test_a_bot_can_announce_another_bots_address(spawn) -> None:
    """WEAKNESS (docs/reliability.md): a bot that serves nothing and announces the
    address of another bot (found on loopback) is accepted: the arena connects its seat
    to that other process, which then plays two seats (and sees both hands). Were it the
    impostor's partner, the team would share its cards."""
    others = [spawn("none", label=f"s{s}") for s in (1, 2, 3)]
    impostor = spawn("announce_peer", label="s0")
    victim = next(b for b in others if b.process.announce.target == impostor.process.announce.target)
    played = play([impostor, *others], config())
    assert_completed(played)
    files = Path(impostor.process.manifest.env["MUS_ZOO_OUT"]).glob("seats-*.txt")
    [seats_file] = [f for f in files if victim.process.pid in (int(f.stem[6:]), _host_ppid(int(f.stem[6:])))]
    seats_seen = seats_file.read_text()
    assert sorted(seats_seen.split()) == sorted(["0", victim.label[1:]])
    assert pid_alive(impostor.process.pid)


# --------------------------------------------------------------------------- bets


def test_negative_bets_cannot_be_sent() -> None:
    """An envido amount is a uint32 on the wire: a negative one cannot be encoded (the
    biggest one, 2**32 - 1, is MALFORMED: tests/remote/test_remote_faults.py)."""
    field = game_pb2.EnvidoAction.DESCRIPTOR.fields_by_name["amount"]
    assert field.type == field.TYPE_UINT32
    with pytest.raises(ValueError):
        game_pb2.EnvidoAction(amount=-2)


def test_a_bot_can_read_the_match_seed_and_deal_every_hand(tmp_path: Path, tag: str) -> None:
    """WEAKNESS (docs/reliability.md): the hand log is written during the match, readable
    by the bots' user, and its header holds the match seed; the engine is public. A bot
    finds the log among the files its parent (the arena) holds open, reads the seed and
    deals the match again: it knows every seat's cards (here, those of the first hand)."""
    specs = [manifest(ZOO, tag, MUS_ZOO_MODE="peek_seed", MUS_ZOO_OUT=str(tmp_path))]
    specs += [manifest(TRIVIAL_BOT, tag) for _ in range(3)]
    cfg = config(match_id="peeked")
    outcome = run_match(specs, Seating(("zoo", "t", "t", "t")), cfg, tmp_path / "logs")
    assert outcome.result.reason.value == "completed" and outcome.result.faults == []
    first_hand = next(r for r in map(json.loads, outcome.log_path.read_text().splitlines()) if r["type"] == "hand")
    [peek_file] = tmp_path.glob("peek-*.json")
    peek = json.loads(peek_file.read_text())
    assert peek["found"] and peek["seed"] == cfg.seed
    assert peek["hands"] == first_hand["deal"]["hands"]  # all four hands, not only its own
    assert wait_gone(tag, timeout_s=3.0) == []


# --------------------------------------------------------------------------- what a bot is given


@pytest.mark.skipif(not (shutil.which("prlimit") and shutil.which("setpriv")), reason="needs util-linux")
def test_bot_gets_its_limits_a_minimal_environment_and_its_own_session(
    spawn, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The manifest's [limits] become the process's rlimits (unset ones: the defaults);
    of the arena's environment only BASE_ENV and ``inherit_env`` pass; the bot leads its
    own session and process group; its parent-death signal is SIGKILL."""
    monkeypatch.setenv("MUS_ADV_ARENA_SECRET", "s3cret")
    monkeypatch.setenv("MUS_ADV_ARENA_SHARED", "shared")
    bot = spawn("introspect", connect=False, limits={"memory_mb": 1024, "cpu_seconds": 30, "open_files": 64})
    bot.spec = dataclasses.replace(bot.spec, inherit_env=("MUS_ADV_ARENA_SHARED",))
    bot.connect()
    [record] = [json.loads(p.read_text()) for p in tmp_path.glob("introspect-*.json")]
    env = record["env"]
    assert "MUS_ADV_ARENA_SECRET" not in env and env["MUS_ADV_ARENA_SHARED"] == "shared"
    handshake_vars = {"MUS_ARENA_COOKIE", "MUS_ARENA_PROTOCOL_VERSIONS", "PYTHONUNBUFFERED"}
    tuning = {"GRPC_EXPERIMENTS"}  # a Python bot of the arena's interpreter: its gRPC tuning (grpc_tuning.py)
    assert set(env) <= {*BASE_ENV, *bot.spec.env, *handshake_vars, *tuning, "MUS_ADV_ARENA_SHARED",
                        "MUS_ARENA_SOCKET_DIR"}
    assert record["limits"] == {
        "RLIMIT_AS": [1024 * MiB, 1024 * MiB],
        "RLIMIT_CPU": [30, 30],
        "RLIMIT_NOFILE": [64, 64],
        "RLIMIT_NPROC": [Limits().processes, Limits().processes],
    }
    assert record["pdeathsig"] == signal.SIGKILL
    # The bot leads its own session and group; where the arena can give it a pid namespace,
    # the group leader is the `unshare` wrapper and the bot is its child.
    assert record["pgid"] == record["sid"] == bot.process.pid
    assert bot.process.pid in (record["pid"], record["ppid"])


# --------------------------------------------------------------------------- the arena dies

ARENA = """
import dataclasses, sys, time
from pathlib import Path
from arena.remote.client import RemoteBot
from arena.remote.manifest import load_manifest
from arena.common.log_setup import configure_logging
configure_logging()  # as the mus command does: the arena's logs on stderr, stdout for the pid
zoo, tag_env, tag, out = sys.argv[1:5]
m = load_manifest(Path(zoo))
m = dataclasses.replace(m, env={**m.env, "MUS_ZOO_CHILD": "1", "MUS_ZOO_OUT": out, tag_env: tag})
bot = RemoteBot(m, Path(out) / "logs", "b")
bot.connect()
print(bot.process.pid, flush=True)
time.sleep(60)
"""


def test_a_bots_child_does_not_outlive_a_killed_arena(tmp_path: Path, tag: str) -> None:
    """The arena dies by SIGKILL while a bot runs a child in its process group: the kernel
    kills the bot (its parent-death signal), and nothing else must survive either. FAILS
    today: the parent-death signal is not inherited by the bot's children, and nobody is
    left to kill the bot's process group, so the child lives on (reparented to init)."""
    arena = subprocess.Popen([sys.executable, "-c", ARENA, str(ZOO), TAG_ENV, tag, str(tmp_path)],
                             stdout=subprocess.PIPE, text=True)
    try:
        bot_pid = int(arena.stdout.readline())  # type: ignore[union-attr]
        wait_for(lambda: any(tmp_path.glob("child-*.txt")), 5, "the bot's child")
        child = int(next(tmp_path.glob("child-*.txt")).read_text())
        arena.kill()
        arena.wait(5)
        assert wait_gone(tag, [bot_pid], timeout_s=2.0) in ([], [child])
        assert not pid_alive(bot_pid), "the bot outlived the arena"
        left = wait_gone(tag, [child], timeout_s=1.0)
        assert left == [], f"the bot's child {child} outlived the killed arena (and its bot)"
    finally:
        for pid in tagged_pids(tag):
            os.kill(pid, signal.SIGKILL)
        arena.kill()
        arena.wait(5)


@pytest.mark.skipif(os.geteuid() != 0, reason="run_as needs an arena running as root")
def test_a_bot_run_as_another_user_cannot_read_the_seed(tag: str) -> None:
    """The fix for the weakness above: with ``run_as`` the bot runs as another user, the
    output folder is private (0700), and the peeking bot finds no log to read; the
    match is played as usual."""
    import pwd
    import tempfile

    user = next((u for u in ("nobody", "daemon") if _has_user(u)), None)
    assert user is not None, "no unprivileged user on this machine"
    shared = Path(tempfile.mkdtemp(prefix="mus-zoo-"))  # where the bot may write its report
    shared.chmod(0o777)
    out = Path(tempfile.mkdtemp(prefix="mus-zoo-out-"))
    staged = _stage_for_other_users()
    try:
        spec = manifest(ZOO, tag, MUS_ZOO_MODE="peek_seed", MUS_ZOO_OUT=str(shared))
        python = _python_for_other_users()
        spec = dataclasses.replace(
            spec, run_as=user, command=(python, "bot.py"), workdir=staged / "zoo",
            env={**spec.env, "PYTHONPATH": str(staged)},
        )
        specs = [spec] + [manifest(TRIVIAL_BOT, tag) for _ in range(3)]
        out.chmod(0o700)
        outcome = run_match(specs, Seating(("zoo", "t", "t", "t")), config(match_id="private"), out / "logs")
        assert outcome.result.reason.value == "completed" and outcome.result.faults == []
        reports = list(shared.glob("peek-*.json"))
        assert reports, "the bot wrote no report"
        peek = json.loads(reports[0].read_text())
        assert peek["found"] is False
        assert pwd.getpwuid(reports[0].stat().st_uid).pw_name == user
    finally:
        shutil.rmtree(shared, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(staged, ignore_errors=True)
    assert wait_gone(tag, timeout_s=3.0) == []


def _has_user(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _python_for_other_users() -> str:
    """An interpreter another user can run: the venv's may live where only root can
    reach it (pyenv under /root); then the system's python3 of the same version."""
    real = Path(os.path.realpath(sys.executable))
    if all(p.stat().st_mode & 0o001 for p in real.parents if p != Path("/")):
        return sys.executable
    system = Path("/usr/bin") / f"python{sys.version_info.major}.{sys.version_info.minor}"
    assert system.exists(), f"{sys.executable} is not reachable by other users and there is no {system}"
    return str(system)


def _stage_for_other_users() -> Path:
    """A world-readable copy of what the zoo bot imports (itself, arena, the SDK with
    mus_core, grpc, protobuf): the checkout and its venv may sit in a folder only root can enter."""
    import tempfile

    import grpc
    import mus_core
    import mus_sdk
    import typing_extensions
    from google import protobuf

    import arena

    root = Path(tempfile.mkdtemp(prefix="mus-zoo-stage-"))
    shutil.copytree(ZOO, root / "zoo")
    packages = (arena, mus_core, mus_sdk, grpc)  # mus_sdk and the engine import mus_core
    for package in (Path(p.__file__).parent for p in packages):
        shutil.copytree(package, root / package.name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(Path(mus_sdk.__file__).parent.parent / "mus", root / "mus", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(Path(protobuf.__file__).parent.parent, root / "google", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(typing_extensions.__file__, root / "typing_extensions.py")  # grpc.aio needs it
    for dirpath, _dirnames, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)
    return root


def _pid_namespaces_here() -> bool:
    """Whether default-profile bots get their own pid namespace on this machine (root)."""
    return bool(protections("default")["pid_namespace"])
