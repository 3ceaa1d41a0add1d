"""bots/search's port of jsbot's strategy (bots/search/jsplay.py) plays as bots/js does.

Two matches on one deal, the port (the search bot with no samples) on seats 0 and 2
and bots/js (node, over gRPC) on 1 and 3, then the seats exchanged: if the port decides
as strategy.js in every decision, both matches are the one match jsbot plays against
itself, hand for hand. Node.js is required (see test_js_bot.py).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from mus_core import Rules

from arena.driver.match import MatchConfig, play_match
from arena.players.inprocess import InProcessBot
from arena.referee.player import Player, SyncAdapter
from arena.remote.client import RemoteBot
from arena.remote.manifest import load_manifest

ROOT = Path(__file__).resolve().parents[2]


def _search_module() -> ModuleType:
    name = "_lang_test_search_bot"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "bots" / "search" / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _match(js_bot: Path, port_seats: tuple[int, int], seed: int, log_dir: Path) -> list[object]:
    search = _search_module()
    players: list[Player] = []
    for seat in range(4):
        if seat in port_seats:
            players.append(SyncAdapter(InProcessBot(search.SearchBot(seed=seat, samples=0))))
        else:
            players.append(RemoteBot(load_manifest(js_bot), log_dir, f"js{seat}"))
    remote = [p for p in players if isinstance(p, RemoteBot)]
    try:
        for p in remote:
            p.connect()
        result = play_match(players, MatchConfig(rules=Rules(games_to_win=2), seed=seed, match_id=f"port{seed}"))
    finally:
        for p in remote:
            p.close()
    assert result.faults == []
    return [result.winner_team, result.games_won, result.hands, result.stones, result.games]


def test_the_port_plays_every_decision_as_bots_js(js_bot: Path, tmp_path: Path) -> None:
    for seed in (11, 12):
        first = _match(js_bot, (0, 2), seed, tmp_path)
        second = _match(js_bot, (1, 3), seed, tmp_path)
        assert first == second, f"seed {seed}: the port and bots/js played differently"
