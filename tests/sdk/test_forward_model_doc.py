"""The examples of docs/sdk.md ("Search: the engine as a forward model") run as written:
the Monte Carlo bot plays a match without faults, and the playout policy plays legally."""

from __future__ import annotations

import random
import re

from mus_core import Rules
from mus_sdk.forward import MusState, play_out_hand
from sdk_helpers import REPO, load_bot_module

from arena.driver.match import MatchConfig, play_match
from arena.players.inprocess import InProcessBot
from arena.referee.player import SyncAdapter


def _example() -> str:
    text = (REPO / "docs" / "sdk.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- example: monte-carlo -->\n```python\n(.*?)```", text, re.S)
    assert found, "docs/sdk.md lost its Monte Carlo example"
    return found.group(1)


def test_the_monte_carlo_example_of_the_docs_plays_a_match() -> None:
    code = _example()
    assert 25 <= len(code.splitlines()) <= 40
    namespace: dict[str, object] = {"__name__": "mcbot"}  # not __main__: no server
    exec(compile(code, "docs/sdk.md#monte-carlo", "exec"), namespace)
    bot_class = namespace["MonteCarloBot"]
    rulebot = load_bot_module("rulebot")
    players = [InProcessBot(bot_class(samples=6, seed=s) if s % 2 == 0 else rulebot.RuleBot())  # type: ignore[operator]
               for s in range(4)]
    result = play_match([SyncAdapter(p) for p in players], MatchConfig(rules=Rules(games_to_win=1), seed=4, match_id="doc-mc"))
    assert result.faults == []
    assert result.winner_team in (0, 1) and result.hands >= 1


def test_the_playout_policy_of_the_docs_plays_every_seat_legally() -> None:
    """The playout policy example runs as written: 100 matches played to their end with
    it at every seat (an illegal action would raise in ``apply``), and the Monte Carlo
    bot of the docs plays a match with it as its playout policy."""
    text = (REPO / "docs" / "sdk.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- example: playout-policy -->\n```python\n(.*?)```", text, re.S)
    assert found, "docs/sdk.md lost its playout policy example"
    namespace: dict[str, object] = {"__name__": "playout"}
    exec(compile(found.group(1), "docs/sdk.md#playout-policy", "exec"), namespace)
    make_policy = namespace["threshold_policy"]
    rng = random.Random(3)
    policy = make_policy(rng)  # type: ignore[operator]
    envidos = 0
    for seed in range(100):
        state = MusState.new(Rules(), seed=seed)
        while not state.is_terminal:
            result = play_out_hand(state, rng, policy=policy)
            envidos += sum(1 for lance in result.lances if lance.bet_team is not None)
    assert envidos > 0  # the policy bets, not only passes

    mc = _example().replace("play_out_hand(sim, self.rng)", "play_out_hand(sim, self.rng, policy=self.policy)")
    mc = mc.replace("self.samples, self.rng = samples, random.Random(seed)",
                    "self.samples, self.rng = samples, random.Random(seed)\n        self.policy = make_policy(self.rng)")
    bot_ns: dict[str, object] = {"__name__": "mcbot", "make_policy": make_policy}
    exec(compile(mc, "docs/sdk.md#monte-carlo", "exec"), bot_ns)
    players = [InProcessBot(bot_ns["MonteCarloBot"](samples=4, seed=s)) for s in range(4)]  # type: ignore[operator]
    result = play_match([SyncAdapter(p) for p in players], MatchConfig(rules=Rules(games_to_win=1), seed=5, match_id="doc-policy"))
    assert result.faults == [] and result.winner_team in (0, 1)
