"""The HTML report of a large league: how long it takes to write, and to open in headless
Chromium (the goal: first paint under 3 s for 1,000 matches).

Plays a league of ``--matches`` matches between in-process random players (real matches
through the referee, real hand logs, ``results.jsonl`` and ``league.json`` as a league
writes them; the standings computed by the report, as for a league still running),
writes its report, then opens ``index.html`` from ``file://`` ``--repeat`` times, each in
a fresh browser context, and reads the page's own paint timings; then opens one match
(its data loaded by a ``<script>`` tag) and times until its first hand is drawn.

Prints the machine, then as its last line a JSON object: ``write_s``, ``index_bytes``,
``first_paint_ms``, ``first_contentful_paint_ms``, ``dom_content_loaded_ms`` (median and
max of the runs), ``open_match_ms`` (median).

    python bench/report.py [--matches 1000] [--repeat 5] [--keep DIR]
    python bench/report.py --screenshot docs/img/viewer.png --from out/demo-X [--match ID --hand N --frame K --view S]

Needs Debian's chromium (``bash bots/setup-toolchains.sh``) and Playwright for Python
(``make setup-dev``); no browser is downloaded.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _machine import machine
from mus_core import Rules

from arena.driver.match import MatchConfig, play_match
from arena.players.local import RandomPlayer
from arena.records.handlog import HandLogWriter, match_header
from arena.referee.player import SyncAdapter
from arena.report import report_folder

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND"]
ENTRIES = [f"bot{i}" for i in range(8)]


def make_league(out: Path, matches: int, seed: int) -> None:
    """A league folder of ``matches`` real matches between random players (8 entries, round robin;
    five games a match, about the hands of a match between real bots)."""
    rules = Rules(target_points=40, games_to_win=5)  # random players bet órdagos: games are short
    (out / "logs").mkdir(parents=True)
    (out / "league.json").write_text(json.dumps({
        "name": f"bench-{matches}", "rules": rules.to_mapping(), "duplicate": False,
        "entries": [{"name": n, "pair": None, "bot": "random"} for n in ENTRIES]}), encoding="utf-8")
    pairs = itertools.cycle(itertools.combinations(ENTRIES, 2))
    with open(out / "results.jsonl", "w", encoding="utf-8") as results:
        for k in range(matches):
            a, b = next(pairs)
            mid = f"{a}--{b}--{k:04d}"
            config = MatchConfig(rules=rules, seed=seed + k, match_id=mid)
            players = [RandomPlayer(seed + 10 * k + s, name=(a, b)[s % 2]) for s in range(4)]
            header = match_header(
                match_id=mid, seed=config.seed, rules=rules, first_dealer=None, decision_ms=config.decision_ms,
                time_bank_ms=config.time_bank_ms, max_faults=config.max_faults, run=None, sandbox=None,
                seats=[{"seat": s, "entry": p.name, "bot": "random", "version": ""} for s, p in enumerate(players)])
            with HandLogWriter(out / "logs" / f"{mid}.jsonl", header) as log:
                result = play_match([SyncAdapter(p) for p in players], config, on_hand=log.hand, poll_us=0)
                log.close({"result": result.to_json()})
            results.write(json.dumps({"team0": a, "team1": b, "match_id": mid, "log": f"{mid}.jsonl",
                                      **result.to_json()}) + "\n")


def measure(index: Path, repeat: int) -> dict[str, Any]:
    """Paint timings of ``index`` in fresh contexts, and the time to open its first match."""
    from playwright.sync_api import sync_playwright

    runs: list[dict[str, float]] = []
    opened: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        for _ in range(repeat):
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()
            page.goto(index.as_uri(), wait_until="load")
            page.wait_for_function("() => performance.getEntriesByName('first-contentful-paint').length > 0")
            runs.append(page.evaluate("""() => {
                const paint = n => performance.getEntriesByName(n)[0].startTime;
                const nav = performance.getEntriesByType('navigation')[0];
                return {first_paint_ms: paint('first-paint'), first_contentful_paint_ms: paint('first-contentful-paint'),
                        dom_content_loaded_ms: nav.domContentLoadedEventEnd};
            }"""))
            first = page.get_attribute("#matches tbody tr", "data-match")
            t0 = time.perf_counter()
            page.evaluate("id => { location.hash = 'match=' + encodeURIComponent(id); }", first)
            page.wait_for_function("id => (document.body.dataset.ready || '').startsWith(id + '/')", arg=first)
            opened.append((time.perf_counter() - t0) * 1000)
            context.close()
        browser.close()
    out: dict[str, Any] = {}
    for key in runs[0]:
        values = [r[key] for r in runs]
        out[key] = {"median": round(statistics.median(values), 1), "max": round(max(values), 1)}
    out["open_match_ms"] = round(statistics.median(opened), 1)
    return out


def screenshot(folder: Path, path: Path, match: str | None, hand: int, frame: int, view: str) -> None:
    """A picture of the viewer, for the docs."""
    from playwright.sync_api import sync_playwright

    report = report_folder(folder)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 760})
        page.goto(report.index.resolve().as_uri())
        match = match or page.get_attribute("#matches tbody tr", "data-match")
        page.evaluate("h => { location.hash = h; }", f"match={match}&hand={hand}&frame={frame}&view={view}")
        page.wait_for_function("want => document.body.dataset.ready === want", arg=f"{match}/{hand}/{frame}/{view}")
        page.screenshot(path=str(path))
        browser.close()
    print(f"screenshot of {match} hand {hand} frame {frame} ({view}): {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", type=Path, help="Build the league in this (new) folder and keep it.")
    ap.add_argument("--screenshot", type=Path, help="Only take a screenshot of the viewer (with --from).")
    ap.add_argument("--from", dest="source", type=Path, help="The league folder to take the screenshot of.")
    ap.add_argument("--match")
    ap.add_argument("--hand", type=int, default=0)
    ap.add_argument("--frame", type=int, default=6)
    ap.add_argument("--view", default="all")
    args = ap.parse_args()
    if args.screenshot:
        if args.source is None:
            ap.error("--screenshot needs --from LEAGUE_DIR")
        screenshot(args.source, args.screenshot, args.match, args.hand, args.frame, args.view)
        return
    print("machine:", json.dumps(machine()))
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp) / "league"
        t0 = time.perf_counter()
        make_league(folder, args.matches, args.seed)
        played = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = report_folder(folder)
        write_s = time.perf_counter() - t0
        figures = measure(report.index, args.repeat)
        hands = sum(1 for p in (folder / "logs").glob("*.jsonl") for line in p.open() if '"type":"hand"' in line)
        print(json.dumps({"matches": report.matches, "hands": hands, "play_s": round(played, 1),
                          "write_s": round(write_s, 2), "index_bytes": report.index.stat().st_size,
                          "matches_bytes": sum(f.stat().st_size for f in (report.index.parent / "matches").iterdir()),
                          **figures}))


if __name__ == "__main__":
    main()
