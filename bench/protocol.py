"""Protocol throughput: one match, four trivial SDK bots as separate processes, on loopback.

Measures in one run:

* ``decisions_per_s``: decisions per second over a whole match (referee, engine,
  protobuf, gRPC stream and the bots' SDK all included), four bot processes placed as
  ``mus match`` places them by default (``--bot-cpus declared``: the trivial bot's
  manifest says ``share_cpu = true``, so on two CPUs or more its four processes share
  one CPU and the referee's thread runs on another; see arena/remote/placement.py);
  ``placement`` says where they ran;
* ``baseline_msgs_per_s``: raw gRPC message round trips per second on the same
  transport and shape, placed alike (echo servers where the bots run, the driver where
  the referee runs): four sync ``grpc.server`` processes (as ``mus_sdk.serve`` runs),
  the arena's ``grpc.aio`` client, one bidirectional stream each opened by an unanswered
  message (as the match start), then round trips to each in turn, with raw-byte
  payloads of a request's and a decision's size: no protobuf, no game. The client runs
  once on the referee's event loop (polling ``--spin-us`` before it sleeps, see
  arena/referee/eventloop.py) and once on a plain loop; each round takes the faster
  (``baseline_msgs_per_s_by_loop`` gives both);
* ``decisions_per_s_bot_cpus_any``, ``baseline_msgs_per_s_bot_cpus_any``,
  ``ratio_bot_cpus_any``: the same with everything placed by the system
  (``--bot-cpus any``, what bots that do not say ``share_cpu`` get);
* ``prepared_ahead``: the share of that match's decisions whose request the referee
  had prepared while the previous seat thought (see arena/referee/match.py);
* ``decisions_per_s_strict``, ``strict_over_default``: the first match again with its
  bots under the strict sandbox (bubblewrap; arena/remote/sandbox.py), and the median of
  each round's ratio to the default profile's match; ``startup_s_per_match``: the
  seconds to start and connect a match's four bots under each profile;
* ``sdk_ceiling_per_s``: the same driver against four trivial SDK bots with one
  pre-serialised decision request, placed as the match: everything but the referee.

and prints the machine, then as its last line a JSON object with the figures (medians
of the rounds), the ratio of the first two (the median of each round's ratio: a match and
its baseline measured moments apart share the machine's load), and the time per
decision split into transport, SDK and arena.

    python bench/protocol.py [--games 20] [--seconds 2] [--repeat 3] [--spin-us US] [--halt-poll-ns NS]

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
from _machine import halt_poll, machine, spin_us_arg  # noqa: E402

from arena.engine import Rules  # noqa: E402
from arena.referee.eventloop import DEFAULT_SPIN_US, new_event_loop  # noqa: E402
from arena.referee.match import MatchConfig, play_match  # noqa: E402
from arena.remote import sandbox  # noqa: E402
from arena.remote.client import RemoteBot  # noqa: E402
from arena.remote.manifest import load_manifest  # noqa: E402
from arena.remote.placement import UNPINNED, BotCpus, Placement, pinned_thread  # noqa: E402

TRIVIAL = HERE / "bots" / "trivial"


def decisions_per_s(
    games: int, seed: int, log_dir: Path, placement: Placement = UNPINNED, spin_us: int = DEFAULT_SPIN_US,
    sandbox: str = "default", startup: list[float] | None = None,
) -> tuple[float, int, float, float]:
    """Decisions per second of one match, its decisions, its seconds, and the share of
    its decisions whose request was prepared ahead. ``sandbox``: the bots' profile;
    the seconds to start and connect the four bots (as a match does: all launched,
    then each waited for) are appended to ``startup``."""
    manifest = load_manifest(TRIVIAL)
    bots = [RemoteBot(manifest, log_dir, f"seat{i}", cpus=placement.bots, sandbox=sandbox) for i in range(4)]
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
        play_match(bots, MatchConfig(rules=Rules(games_to_win=1), seed=seed + 1, match_id="warmup"), spin_us=spin_us)
        config = MatchConfig(rules=Rules(games_to_win=games), seed=seed, decision_ms=5000, time_bank_ms=600_000)
        with pinned_thread(placement.referee):
            t0 = time.perf_counter()
            result = play_match(bots, config, spin_us=spin_us)
            dt = time.perf_counter() - t0
    finally:
        for b in bots:
            b.close()
    n = sum(s.decisions for s in result.seats)
    if result.faults:
        raise SystemExit(f"faults in the benchmark match: {result.faults[:3]}")
    return n / dt, n, dt, sum(b.prepared_used for b in bots) / n


def baseline(
    seconds: float, placement: Placement = UNPINNED, spin_us: int = DEFAULT_SPIN_US, plain_first: bool = False
) -> dict[int, float]:
    """Raw round trips per second; with a placement, the echo servers run where the bots
    would and the driving thread where the referee would (the same transport, placed alike).

    Measured with the driver on the referee's event loop (polling ``spin_us`` before it
    sleeps) and on a plain one (0), against the same servers: keyed by the window. The
    ratio takes the faster of the two, so the referee's polling never flatters it (on a
    machine whose kernel polls idle CPUs, the plain loop is the faster baseline).
    ``plain_first``: the order of the two (rounds alternate it)."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        # The servers inherit the bots' CPUs, as bots do.
        gb.servers(lambda i: gb._spawn("sync", "tcp", tmp, i), lambda: pinned_thread(placement.bots)) as targets,
        pinned_thread(placement.referee),
    ):
        order = (0, spin_us) if plain_first else (spin_us, 0)
        rates = {spin: gb.bench_session_aio(targets, seconds, loop_factory=_loop(spin)) for spin in dict.fromkeys(order)}
        return {spin: rates[spin] for spin in dict.fromkeys((spin_us, 0))}


def sdk_ceiling(seconds: float, placement: Placement = UNPINNED, spin_us: int = DEFAULT_SPIN_US) -> float:
    """The baseline's driver against four trivial SDK bots, placed as a match's."""
    with tempfile.TemporaryDirectory() as tmp:
        return gb.bench_sdk_session(
            "tcp", tmp, seconds, loop_factory=_loop(spin_us),
            bots_in=lambda: pinned_thread(placement.bots), driver_in=lambda: pinned_thread(placement.referee),
        )


def _loop(spin_us: int) -> Callable[[], asyncio.AbstractEventLoop]:
    return lambda: new_event_loop(spin_us)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="games_to_win of the match (its length; ~2 s, as long as each baseline)")
    ap.add_argument("--seconds", type=float, default=2.0, help="duration of each baseline measurement")
    ap.add_argument("--repeat", type=int, default=3, help="rounds of (match, baseline, SDK ceiling); medians are reported")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--spin-us", type=spin_us_arg, default=DEFAULT_SPIN_US, metavar="US",
        help="how long the referee's event loop polls before it sleeps: in the matches, the SDK ceiling and one of "
        f"the two baselines (the other runs on a plain loop) (default {DEFAULT_SPIN_US}, as `mus match`; 0: never; "
        "see docs/performance.md)",
    )
    ap.add_argument(
        "--halt-poll-ns", type=int, default=None, metavar="NS",
        help="set the VM's idle halt-polling window for this run, then restore it (root; see docs/performance.md)",
    )
    args = ap.parse_args()
    with halt_poll(args.halt_poll_ns):
        run(args)


def run(args: argparse.Namespace) -> None:
    print("machine:", json.dumps(machine()))
    # The match as `mus match` places these bots by default: the trivial bot's manifest
    # says share_cpu = true, so "declared" pins it as "auto" does (on two CPUs or more).
    default = BotCpus().for_slot(0, bots_share_cpu=load_manifest(TRIVIAL).share_cpu)
    if default.bots is None:
        print("placements: the default (declared) pins nothing here; any (the system's)")
    else:
        print(f"placements: the default (declared: the bots say share_cpu, so bots on CPU {sorted(default.bots)}, "
              f"referee on CPU {sorted(default.referee or ())}), and any (the system's)")
    rates: list[float] = []
    free: list[float] = []
    bases: list[dict[int, float]] = []
    free_bases: list[dict[int, float]] = []
    ceilings: list[float] = []
    prepared: list[float] = []
    strict: list[float] = []
    startup: dict[str, list[float]] = {"default": [], "strict": []}
    with_strict = sandbox.require_ok(sandbox.STRICT)
    n = 0
    # Interleaved rounds: on a shared machine the load drifts, and medians of
    # interleaved measurements compare like with like.
    for r in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            rate, n, dt, share = decisions_per_s(args.games, args.seed, Path(tmp), default, args.spin_us,
                                                 startup=startup["default"])
        rates.append(rate)
        prepared.append(share)
        if with_strict:  # the same match, its bots under the strict sandbox (bubblewrap)
            with tempfile.TemporaryDirectory() as tmp:
                strict.append(decisions_per_s(args.games, args.seed, Path(tmp), default, args.spin_us, "strict",
                                              startup["strict"])[0])
        with tempfile.TemporaryDirectory() as tmp:
            free.append(decisions_per_s(args.games, args.seed, Path(tmp), UNPINNED, args.spin_us)[0])
        bases.append(baseline(args.seconds, default, args.spin_us, plain_first=r % 2 == 1))
        free_bases.append(baseline(args.seconds, UNPINNED, args.spin_us, plain_first=r % 2 == 1))
        ceilings.append(sdk_ceiling(args.seconds, default, args.spin_us))
        best, free_best = max(bases[-1].values()), max(free_bases[-1].values())
        print(
            f"round {r + 1}: match {n} decisions in {dt:.2f} s = {rate:,.0f} decisions/s, raw baseline "
            f"{best:,.0f} round trips/s {_loops(bases[-1])} (ratio {rate / best:.2f}); placed by the system: "
            f"{free[-1]:,.0f} decisions/s, baseline {free_best:,.0f} {_loops(free_bases[-1])} "
            f"(ratio {free[-1] / free_best:.2f}); SDK ceiling {ceilings[-1]:,.0f} decisions/s"
            + (f"; strict sandbox {strict[-1]:,.0f} decisions/s ({strict[-1] / rate:.2f} of default), bots started in "
               f"{startup['strict'][-1]:.2f} s against {startup['default'][-1]:.2f} s" if with_strict else "")
        )
    rate, ceiling = statistics.median(rates), statistics.median(ceilings)
    base = statistics.median(max(b.values()) for b in bases)
    transport_us = 1e6 / base
    sdk_us = 1e6 / ceiling - transport_us
    arena_us = 1e6 / rate - 1e6 / ceiling
    print(
        f"per decision: {1e6 / rate:.0f} us = transport {transport_us:.0f} + SDK bot {sdk_us:.0f} "
        f"+ referee {arena_us:.0f} (medians of {args.repeat}, the default placement)"
    )
    print(json.dumps({
        "bench": "protocol",
        "decisions_per_s": round(rate),
        "baseline_msgs_per_s": round(base),
        "ratio": _ratio(rates, bases),
        "placement": {"bot_cpus": _cpus(default.bots), "referee_cpus": _cpus(default.referee)},
        "baseline_msgs_per_s_by_loop": _by_loop(bases),
        "decisions_per_s_bot_cpus_any": round(statistics.median(free)),
        "baseline_msgs_per_s_bot_cpus_any": round(statistics.median(max(b.values()) for b in free_bases)),
        "ratio_bot_cpus_any": _ratio(free, free_bases),
        "baseline_msgs_per_s_bot_cpus_any_by_loop": _by_loop(free_bases),
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
        "spin_us": args.spin_us,
        "transport": "tcp loopback, one bidi stream per seat, grpc.aio client, sync grpc.server bots",
    }))


def _cpus(cpus: frozenset[int] | None) -> list[int] | None:
    return sorted(cpus) if cpus is not None else None


def _ratio(matches: list[float], bases: list[dict[int, float]]) -> float:
    """The median over rounds of each round's match rate over its faster baseline."""
    return round(statistics.median(m / max(b.values()) for m, b in zip(matches, bases, strict=True)), 3)


def _by_loop(bases: list[dict[int, float]]) -> dict[str, int]:
    """The median baseline of each loop: ``polling_<us>`` and ``plain``."""
    return {
        ("plain" if spin == 0 else f"polling_{spin}us"): round(statistics.median(b[spin] for b in bases))
        for spin in bases[0]
    }


def _loops(rates: dict[int, float]) -> str:
    return "(" + ", ".join(f"{'plain' if s == 0 else 'polling'} loop {r:,.0f}" for s, r in rates.items()) + ")"


if __name__ == "__main__":
    main()
