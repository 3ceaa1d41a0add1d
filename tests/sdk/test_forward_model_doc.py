"""The Monte Carlo bot of docs/sdk.md ("Search: the engine as a forward model") runs as
written: its code block is executed, and the bot plays a match without faults."""

from __future__ import annotations

import re

from sdk_helpers import REPO, load_bot_module

from arena.engine import Rules
from arena.players.inprocess import InProcessBot
from arena.referee.match import MatchConfig, play_match


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
    result = play_match(players, MatchConfig(rules=Rules(games_to_win=1), seed=4, match_id="doc-mc"))
    assert result.faults == []
    assert result.winner_team in (0, 1) and result.hands >= 1
