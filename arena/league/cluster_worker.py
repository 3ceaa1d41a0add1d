"""The worker side of a league on Ray (:mod:`arena.league.cluster`): what a task is
given (:class:`MatchTask`: nothing of the league's secret), what it plays it with
(:func:`play_match_task`, :func:`~arena.runner.match.run_match` in a private folder
of the worker process, the bot processes kept there between matches), and what it hands
back (:class:`WorkerResult`). A worker never writes into the driver's folder.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import json
import os
import shutil
import socket
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.driver.match import MatchConfig, MatchResult
from arena.league import bundle
from arena.remote import sandbox
from arena.remote.manifest import BotManifest, Limits
from arena.remote.output import LOG_CAP_BYTES
from arena.runner.match import Seating, run_match
from arena.runner.pool import ProcessPool
from arena.runtime.settings import Runtime


class WorkerUnfit(RuntimeError):
    """A worker node that cannot play a match: a bot's program or libraries are missing
    there, or the sandbox the league asks for. A fault of the cluster, not of the bot."""


@dataclass(frozen=True)
class MatchTask:
    """What a worker is given to play one match: nothing of the league's secret."""

    match: MatchConfig
    """The match's own seed, id, rules and time control."""
    seating: tuple[str, ...]
    """The entry of each seat."""
    bundles: tuple[tuple[str, str], ...]
    """(digest, manifest path) of each distinct bot of the match."""
    seat_bots: tuple[int, ...]
    """Per seat, its bot's index in :attr:`bundles`."""
    terms: tuple[tuple[Limits, tuple[str, ...]], ...]
    """Per bundle, the limits and inherited variables the league file left its manifest
    (arena.remote.grants): a worker reads the manifest again, and must not let it decide."""
    runtime: Runtime
    sandbox: str
    reuse: bool
    """Keep bot processes in the worker process for its next matches (arena.runner.pool)."""
    max_process_matches: int


@dataclass(frozen=True)
class WorkerResult:
    """What a task hands back: the match as played, the files the driver writes."""

    match_id: str
    seating: tuple[str, ...]
    result: MatchResult
    log: bytes
    """The hand log, whole."""
    start_error: str
    start_failed: tuple[int, ...]
    stderr_names: tuple[str | None, ...]
    """Per seat, the name of its bot process's stderr log in ``bots/``."""
    bot_logs: dict[str, bytes]
    """What the match's bot processes wrote to their logs since the worker last sent them."""
    bots_dir: str
    """The worker's folder for bot logs: its paths in messages become the driver's."""
    node: str
    play_s: float
    """Seconds in :func:`~arena.runner.match.run_match` (starting bots, refereeing)."""
    task_s: float
    """Seconds in the whole task."""


class _WorkerState:
    """What a Ray worker process keeps between its matches: a private folder, its bot
    process pools, what it has sent of each bot log, and the bots checked on this node."""

    def __init__(self, node: str) -> None:
        self.node = node
        # Ray ends its workers without running atexit handlers: each worker removes the
        # folders of the workers before it that are gone, so a node's disk does not fill
        # up league after league.
        home = _private_dir(Path(tempfile.gettempdir()) / f"mus-arena-workers-{os.getuid()}")
        _remove_dead(home)
        self.dir = _private_dir(home / str(os.getpid()))  # 0700: the logs hold match seeds
        self.bots = self.dir / "bots"
        self.bots.mkdir(exist_ok=True)
        # A hand log lives here only until the task returns it: in memory where there is a
        # tmpfs, so that its writer's fsync (made for the driver's copy) costs nothing.
        shm = Path("/dev/shm")
        if shm.is_dir():
            logs_home = _private_dir(shm / f"mus-arena-logs-{os.getuid()}")
            _remove_dead(logs_home)
            self.logs = _private_dir(logs_home / str(os.getpid()))
        else:
            self.logs = _private_dir(self.dir / "logs")
        self.pools: dict[tuple[int, str, int], ProcessPool] = {}
        self.sent: dict[str, int] = {}
        self.specs: dict[str, BotManifest] = {}
        """Each unpacked bot's manifest, read once, checked once (``fit``)."""
        self.fit: dict[str, str | None] = {}
        self.sandboxes: dict[str, str | None] = {}
        """Each sandbox profile's check on this node (None: available)."""
        atexit.register(self.close)

    def pool(self, task: MatchTask) -> ProcessPool:
        """This thread's pool for the task's sandbox (a pool belongs to one thread)."""
        key = (threading.get_ident(), task.sandbox, task.max_process_matches)
        if key not in self.pools:
            self.pools[key] = ProcessPool(self.bots, sandbox=task.sandbox, max_matches=task.max_process_matches)
        return self.pools[key]

    def new_log_bytes(self, names: list[str]) -> dict[str, bytes]:
        """The bytes of each named bot log not yet sent (a pooled process's log grows
        over its matches), at most the log cap per file."""
        out: dict[str, bytes] = {}
        for name in names:
            path = self.bots / name
            start = self.sent.get(name, 0)
            try:
                size = path.stat().st_size
                if size <= start:
                    continue
                with open(path, "rb") as f:
                    f.seek(start)
                    out[name] = f.read(min(size - start, LOG_CAP_BYTES))
            except OSError:
                continue
            self.sent[name] = start + len(out[name])
        return out

    def close(self) -> None:
        """Stop the kept bot processes and remove the folder (the worker exits)."""
        for key, pool in list(self.pools.items()):
            if key[0] == threading.get_ident():
                with contextlib.suppress(Exception):
                    pool.close()
        shutil.rmtree(self.logs, ignore_errors=True)
        shutil.rmtree(self.dir, ignore_errors=True)


_state: _WorkerState | None = None


def _private_dir(path: Path) -> Path:
    """``path``, a folder only this user may enter (made if missing)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)
    return path


def _remove_dead(home: Path) -> None:
    """Remove the folders in ``home`` named after a process that no longer runs."""
    for folder in home.iterdir():
        if not folder.name.isdigit() or int(folder.name) == os.getpid():
            continue
        try:
            os.kill(int(folder.name), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            pass  # alive (another user's, or not ours to signal)


def _node_name(ray: ModuleType) -> str:
    """How a message names the node a task runs on."""
    node_id = ray.get_runtime_context().get_node_id()
    return f"{socket.gethostname()} ({ray.util.get_node_ip_address()}, node {node_id[:8]})"


def play_match_task(task: MatchTask, bundle_refs: list[Any]) -> WorkerResult:
    """Play one match on this worker (the body of the league's Ray task).

    ``bundle_refs``: the Ray objects of the bots' folders, in :attr:`MatchTask.bundles`
    order, fetched only by a node that has not unpacked them yet.

    Raises:
        WorkerUnfit: this node cannot run one of the bots, or the league's sandbox.
    """
    import ray

    started = time.perf_counter()
    global _state
    if _state is None:
        _state = _WorkerState(_node_name(ray))
    state = _state
    node = state.node
    root = bundle.cache_root()
    specs: list[BotManifest] = []
    for (digest, manifest), ref, (limits, inherit) in zip(task.bundles, bundle_refs, task.terms, strict=True):
        key = f"{digest}/{manifest}"
        if key not in state.specs:
            folder = bundle.unpacked(digest, root) or bundle.unpack(digest, ray.get(ref), root)
            state.specs[key] = spec = bundle.load_unpacked(folder, manifest)
            state.fit[key] = bundle.missing(spec)
        spec = dataclasses.replace(state.specs[key], limits=limits, inherit_env=inherit)
        if state.fit[key] is not None:
            entries = sorted({task.seating[s] for s, b in enumerate(task.seat_bots) if task.bundles[b][0] == digest})
            raise WorkerUnfit(f"node {node} cannot run bot {spec.name} (entry {', '.join(entries)}): "
                              f"{state.fit[key]}")
        specs.append(spec)
    if task.sandbox not in state.sandboxes:
        try:
            sandbox.require(task.sandbox)
            state.sandboxes[task.sandbox] = None
        except sandbox.SandboxUnavailable as exc:
            state.sandboxes[task.sandbox] = str(exc)
    if state.sandboxes[task.sandbox] is not None:
        raise WorkerUnfit(f"node {node} cannot give the sandbox {task.sandbox!r}: {state.sandboxes[task.sandbox]}")
    play = time.perf_counter()
    outcome = run_match([specs[b] for b in task.seat_bots], Seating(task.seating), task.match, state.logs,
                        bot_log_dir=state.bots, runtime=task.runtime, sandbox=task.sandbox,
                        pool=state.pool(task) if task.reuse else None)
    play_s = time.perf_counter() - play
    data = outcome.log_path.read_bytes()
    outcome.log_path.unlink()
    header = json.loads(data.split(b"\n", 1)[0])
    labels = {seat["process"]["first_seat"] for seat in header.get("seats", []) if seat.get("process")}
    names = sorted(f"{label}.{stream}.log" for label in labels for stream in ("stdout", "stderr"))
    return WorkerResult(
        outcome.match_id, outcome.seating.seats, outcome.result, data, outcome.start_error, outcome.start_failed,
        tuple(p.name if p is not None else None for p in outcome.stderr_logs), state.new_log_bytes(names),
        str(state.bots), node, play_s, time.perf_counter() - started,
    )
