"""Protocol throughput: one match, four trivial SDK bots as separate processes, on loopback.

Measures in one run, each round measuring everything under the same conditions:

* ``decisions_per_s``: decisions per second over a whole match (referee, engine,
  protobuf, gRPC stream and the bots' SDK all included) with the default settings of
  ``mus match`` (:class:`arena.runtime.settings.Runtime`: the system places the four bot
  processes and the referee, which polls ``--poll-us`` before it sleeps);
* ``baseline_msgs_per_s``: raw gRPC message round trips per second on the same
  transport and shape, placed alike (by the system): four sync ``grpc.server``
  processes (as ``mus_sdk.serve`` runs), the arena's ``grpc.aio`` client, one
  bidirectional stream each opened by an unanswered message (as the match start), then
  round trips to each in turn, with raw-byte payloads of a request's and a decision's
  size: no protobuf, no game. The client runs once on the referee's event loop
  (polling, see arena/runtime/eventloop.py) and once on a plain loop; each round takes
  the faster (``baseline_msgs_per_s_by_loop`` gives both);
* ``ratio`` (the median), ``ratios`` (every round's): the match over its baseline of
  the same round, and ``check``: whether every round reached the issue's bar (0.6 on a
  quiet machine, 0.5 under ``--load``);
* ``prepared_ahead``: the share of the default match's decisions whose request the
  referee had prepared while the previous seat thought (see arena/driver/match.py);
* ``decisions_per_s_strict``, ``strict_over_default``: the default match again with its
  bots under the strict sandbox (bubblewrap; arena/remote/sandbox.py), and the median of
  each round's ratio to the default profile's match; ``startup_s_per_match``: the
  seconds to start and connect a match's four bots under each profile;
* ``sdk_ceiling_per_s``: the same driver against four trivial SDK bots with one
  pre-serialised decision request, placed as the match: everything but the referee.

``--load N`` starts N busy processes (``while True: pass``) for the whole run and kills
them at its end: with N the machine's CPUs, every figure is measured on a loaded machine.

Prints the machine, one line per round with its ratios, the time per decision split into
transport, SDK and arena, and as its last line a JSON object with the figures (medians
of the rounds).

    python bench/protocol.py [--games 20] [--seconds 2] [--repeat 3] [--load N] [--poll-us US] [--halt-poll-ns NS]

``--halt-poll-ns`` measures the same machine with another idle policy (see
docs/performance.md, "The machine's idle policy").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import grpc_baseline as gb  # noqa: E402
from _machine import busy_load, halt_poll, machine, poll_us_arg  # noqa: E402
from mus_core import Rules  # noqa: E402

from arena.driver.match import MatchConfig, MatchResult, play_match_async  # noqa: E402
from arena.remote import sandbox  # noqa: E402
from arena.remote.client import RemoteBot  # noqa: E402
from arena.remote.manifest import load_manifest  # noqa: E402
from arena.runtime.eventloop import new_event_loop  # noqa: E402
from arena.runtime.settings import DEFAULT_POLL_US, Runtime  # noqa: E402

TRIVIAL = HERE / "bots" / "trivial"
BAR = {False: 0.6, True: 0.5}
"""The issue's bar for every round's ratio: on a quiet machine, and under --load."""


def play(bots: list[RemoteBot], config: MatchConfig, runtime: Runtime) -> MatchResult:
    """One match on this thread, run as ``runtime`` says (as ``mus match`` runs it)."""
    with runtime.refereeing() as loop:
        return loop.run_until_complete(play_match_async(bots, config))


def decisions_per_s(
    games: int, seed: int, log_dir: Path, runtime: Runtime, sandbox: str = "default",
    startup: list[float] | None = None,
) -> tuple[float, int, float, float]:
    """Decisions per second of one match, its decisions, its seconds, and the share of
    its decisions whose request was prepared ahead. ``sandbox``: the bots' profile;
    the seconds to start and connect the four bots (as a match does: all launched,
    then each waited for) are appended to ``startup``."""
    manifest = load_manifest(TRIVIAL)
    bots = [RemoteBot(manifest, log_dir, f"seat{i}", sandbox=sandbox) for i in range(4)]
    try:
        t_start = time.perf_counter()
        for b in bots:
            b.launch()
        for b in bots:
            b.connect()
        if startup is not None:
            startup.append(time.perf_counter() - t_start)
        # A short warm-up match first: the first stream and the bots' first requests
        # pay one-off costs (connections, lazy imports) that are not the steady rate.
        play(bots, MatchConfig(rules=Rules(games_to_win=1), seed=seed + 1, match_id="warmup"), runtime)
        config = MatchConfig(rules=Rules(games_to_win=games), seed=seed, decision_ms=5000, time_bank_ms=600_000)
        t0 = time.perf_counter()
        result = play(bots, config, runtime)
        dt = time.perf_counter() - t0
    finally:
        for b in bots:
            b.close()
    n = sum(s.decisions for s in result.seats)
    if result.faults:
        raise SystemExit(f"faults in the benchmark match: {result.faults[:3]}")
    return n / dt, n, dt, sum(s.prepared for s in result.seats) / n


def baseline(seconds: float, runtime: Runtime, plain_first: bool = False) -> dict[int, float]:
    """Raw round trips per second, placed as a match is (by the system).

    Measured with the driver on the referee's event loop (polling ``runtime.poll_us``
    before it sleeps) and on a plain one (0), against the same servers: keyed by the
    window. The ratio takes the faster of the two, so the referee's polling never
    flatters it (on a machine whose kernel polls idle CPUs, the plain loop is the faster
    baseline). ``plain_first``: the order of the two (rounds alternate it)."""
    poll = runtime.poll_us
    with (
        tempfile.TemporaryDirectory() as tmp,
        gb.servers(lambda i: gb._spawn("sync", "tcp", tmp, i)) as targets,
    ):
        order = (0, poll) if plain_first else (poll, 0)
        rates = {w: gb.bench_session_aio(targets, seconds, loop_factory=_loop(w)) for w in dict.fromkeys(order)}
        return {w: rates[w] for w in dict.fromkeys((poll, 0))}


def sdk_ceiling(seconds: float, runtime: Runtime) -> float:
    """The baseline's driver against four trivial SDK bots, placed as a match's."""
    with tempfile.TemporaryDirectory() as tmp:
        return gb.bench_sdk_session(
            "tcp", tmp, seconds, loop_factory=_loop(runtime.poll_us),
        )


def _loop(poll_us: int) -> Callable[[], asyncio.AbstractEventLoop]:
    return lambda: new_event_loop(poll_us)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="games_to_win of the match (its length; ~2 s, as long as each baseline)")
    ap.add_argument("--seconds", type=float, default=2.0, help="duration of each baseline measurement")
    ap.add_argument("--repeat", type=int, default=3, help="rounds of (matches, baselines, SDK ceiling); medians are reported")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--load", type=int, default=0, metavar="N",
                    help="start N busy processes (a pure CPU loop each) for the whole run: N = the machine's CPUs "
                    "measures a loaded machine (default 0: as it is)")
    ap.add_argument(
        "--poll-us", type=poll_us_arg, default=DEFAULT_POLL_US, metavar="US",
        help="how long the referee's event loop polls before it sleeps: in the matches, the SDK ceiling and one of "
        f"the two baselines (the other runs on a plain loop) (default {DEFAULT_POLL_US}, as `mus match`; 0: never; "
        "see docs/performance.md)",
    )
    ap.add_argument(
        "--halt-poll-ns", type=int, default=None, metavar="NS",
        help="set the VM's idle halt-polling window for this run, then restore it (root; see docs/performance.md)",
    )
    args = ap.parse_args()
    with halt_poll(args.halt_poll_ns), busy_load(args.load):
        run(args)


def run(args: argparse.Namespace) -> None:
    print("machine:", json.dumps({**machine(), "load": args.load}))
    default = Runtime(poll_us=args.poll_us)  # as `mus match` runs a match: the system places everything
    print("settings: the default (the system places the bots and the referee)"
          + (f"; {args.load} busy processes" if args.load else "; no load added"))
    rates: list[float] = []
    bases: list[dict[int, float]] = []
    ceilings: list[float] = []
    prepared: list[float] = []
    strict: list[float] = []
    startup: dict[str, list[float]] = {"default": [], "strict": []}
    with_strict = sandbox.require_ok(sandbox.STRICT)
    n = 0
    # Interleaved rounds: on a shared machine the load drifts, and each round's ratio
    # compares a match with the baseline measured moments apart.
    for r in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            rate, n, dt, share = decisions_per_s(args.games, args.seed, Path(tmp), default, startup=startup["default"])
        rates.append(rate)
        prepared.append(share)
        bases.append(baseline(args.seconds, default, plain_first=r % 2 == 1))
        if with_strict:  # the same match, its bots under the strict sandbox (bubblewrap)
            with tempfile.TemporaryDirectory() as tmp:
                strict.append(decisions_per_s(args.games, args.seed, Path(tmp), default, "strict", startup["strict"])[0])
        ceilings.append(sdk_ceiling(args.seconds, default))
        best = max(bases[-1].values())
        print(
            f"round {r + 1}: match {n} decisions in {dt:.2f} s = {rate:,.0f} decisions/s, raw baseline "
            f"{best:,.0f} round trips/s {_loops(bases[-1])}: ratio {rate / best:.2f}"
            f"{'' if rate / best >= BAR[args.load > 0] else ' (below ' + str(BAR[args.load > 0]) + ')'}; "
            f"SDK ceiling {ceilings[-1]:,.0f} decisions/s"
            + (f"; strict sandbox {strict[-1]:,.0f} decisions/s ({strict[-1] / rate:.2f} of default), bots started in "
               f"{startup['strict'][-1]:.2f} s against {startup['default'][-1]:.2f} s" if with_strict else ""),
            flush=True,
        )
    rate, ceiling = statistics.median(rates), statistics.median(ceilings)
    base = statistics.median(max(b.values()) for b in bases)
    transport_us = 1e6 / base
    sdk_us = 1e6 / ceiling - transport_us
    arena_us = 1e6 / rate - 1e6 / ceiling
    print(
        f"per decision: {1e6 / rate:.0f} us = transport {transport_us:.0f} + SDK bot {sdk_us:.0f} "
        f"+ referee {arena_us:.0f} (medians of {args.repeat}, the default settings)"
    )
    ratios = [round(m / max(b.values()), 3) for m, b in zip(rates, bases, strict=True)]
    bar = BAR[args.load > 0]
    print(json.dumps({
        "bench": "protocol",
        "load": args.load,
        "decisions_per_s": round(rate),
        "baseline_msgs_per_s": round(base),
        "ratio": round(statistics.median(ratios), 3),
        "ratios": ratios,
        "check": {"bar": bar, "every_round": min(ratios) >= bar},
        "baseline_msgs_per_s_by_loop": _by_loop(bases),
        "prepared_ahead": round(statistics.median(prepared), 3),
        # The strict sandbox (arena/remote/sandbox.py): the same match, paired round by round.
        "decisions_per_s_strict": round(statistics.median(strict)) if strict else None,
        "strict_over_default": round(statistics.median(a / b for a, b in zip(strict, rates, strict=False)), 3)
        if strict else None,
        "startup_s_per_match": {k: round(statistics.median(v), 3) for k, v in startup.items() if v},
        "sdk_ceiling_per_s": round(ceiling),
        "us_per_decision": {"transport": round(transport_us), "sdk_bot": round(sdk_us), "referee": round(arena_us)},
        "decisions": n,
        "repeat": args.repeat,
        "poll_us": args.poll_us,
        "transport": "tcp loopback, one bidi stream per seat, grpc.aio client, sync grpc.server bots",
    }))


def _by_loop(bases: list[dict[int, float]]) -> dict[str, int]:
    """The median baseline of each loop: ``polling_<us>`` and ``plain``."""
    return {
        ("plain" if w == 0 else f"polling_{w}us"): round(statistics.median(b[w] for b in bases))
        for w in bases[0]
    }


def _loops(rates: dict[int, float]) -> str:
    return "(" + ", ".join(f"{'plain' if w == 0 else 'polling'} loop {r:,.0f}" for w, r in rates.items()) + ")"


if __name__ == "__main__":
    main()
