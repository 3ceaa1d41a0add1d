"""bots/search: it passes ``mus check``, plays a match without faults, and its search
values the actions of clear positions the right way round."""

from __future__ import annotations

from pathlib import Path

from mus_core import ORDAGO, Rules, parse_cards
from mus_core.state import MusState
from mus_sdk import NO_QUIERO, QUIERO, MatchInfo
from sdk_helpers import REPO, load_bot_module

from arena.driver.match import MatchConfig, play_match
from arena.players.inprocess import InProcessBot
from arena.referee.player import SyncAdapter
from arena.tools.check import run_check
from arena.wire.convert import observation_for

search = load_bot_module("search")
rulebot = load_bot_module("rulebot")


def _bot(rules: Rules, seat: int, samples: int) -> object:
    bot = search.SearchBot(seed=1, samples=samples)
    bot.on_match_start(MatchInfo(match_id="t", seat=seat, partners=(), num_seats=rules.players, rules=rules))
    return bot


def test_search_bot_passes_mus_check(tmp_path: Path) -> None:
    """The bot as a process, over gRPC, with its manifest's samples per decision; step 9
    included: it plays a match the same after other matches (issue 29). Its manifest's cap
    on a decision's time (1000 ms) is raised here: reached only on a very busy machine (a
    test machine may be one), it makes the play depend on the clock, which step 9 would
    rightly report."""
    manifest = (REPO / "bots" / "search" / "bot.toml").read_text(encoding="utf-8")
    assert 'MUS_SEARCH_MS = "1000"' in manifest
    (tmp_path / "bot.toml").write_text(
        manifest.replace('MUS_SEARCH_MS = "1000"', 'MUS_SEARCH_MS = "60000"').replace(
            '"bot.py"', f'"{REPO / "bots" / "search" / "bot.py"}"'), encoding="utf-8")
    lines: list[str] = []
    results = run_check(str(tmp_path / "bot.toml"), echo=lines.append, decision_ms=30_000)
    assert results and all(r.ok and not r.warning for r in results), "\n".join(lines)
    assert [r.number for r in results] == list(range(1, 10))  # step 9: the same play after other matches


def test_search_bot_plays_a_match_without_faults() -> None:
    rules = Rules(games_to_win=1)
    # Against jsbot's play (the port), which its opponent model trusts: the search runs.
    players = [InProcessBot(search.SearchBot(seed=s, samples=4 if s % 2 == 0 else 0)) for s in range(4)]
    result = play_match([SyncAdapter(p) for p in players], MatchConfig(rules=rules, seed=3, match_id="search-smoke"))
    assert result.faults == []
    assert result.winner_team in (0, 1)
    assert players[0].bot.decisions > 0 and players[0].bot.playouts > 0  # type: ignore[attr-defined]


def _ordago_in_juego(mine: str, theirs: str) -> MusState:
    """Two seats, S0 mano holding ``mine``; S1 holds ``theirs``; both have juego, S0
    passes and S1 bets órdago in the juego lance (grande, chica, pares passed)."""
    rules = Rules(players=2)
    state = MusState.from_deal(rules, [parse_cards(mine), parse_cards(theirs)], mano=0, seed=5)
    state.apply(state.legal_actions()[1])  # no-mus
    while state.current_lance is not None and state.current_lance.name != "JUEGO":
        legal = state.legal_actions()
        state.apply(legal[0])  # paso (or no-quiero)
    state.apply(state.legal_actions()[0])  # S0: paso
    state.apply(ORDAGO)  # S1: órdago
    assert state.to_act == 0 and state.bet is not None and state.bet.is_ordago
    return state


def test_accepting_an_ordago_with_31_as_mano_is_valued_as_a_won_game() -> None:
    """31 from mano cannot lose the juego lance (ties go to mano, no 31 real): quiero wins
    the game in every sample; no quiero only gives away the deje."""
    state = _ordago_in_juego("Ro Rc Co Ab", "Sc Ce 7e Cb")
    obs = observation_for(state, 0)
    values = _bot(state.rules, 0, 40).evaluate(obs, samples=40)  # type: ignore[attr-defined]
    assert values[QUIERO] > values[NO_QUIERO] + 0.15, values
    assert _bot(state.rules, 0, 40).decide(obs) == QUIERO  # type: ignore[attr-defined]


def test_accepting_an_ordago_with_a_hand_that_always_loses_is_valued_below_declining() -> None:
    """S0 holds 33, the worst juego, as mano against an órdago in juego: S1 declared juego,
    so it holds 33 at worst (a tie goes to mano) and nearly always better. Declining
    costs the deje; accepting loses the game in nearly every sample."""
    state = _ordago_in_juego("Ro Co 6e 7b", "Sc Ce 7e Cb")  # S0: 10+10+6+7 = 33
    obs = observation_for(state, 0)
    values = _bot(state.rules, 0, 60).evaluate(obs, samples=60)  # type: ignore[attr-defined]
    assert values[NO_QUIERO] > values[QUIERO] + 0.1, values
    assert _bot(state.rules, 0, 60).decide(obs) == NO_QUIERO  # type: ignore[attr-defined]


def test_best_needs_a_significant_gain_and_distrusts_an_unseen_ordago_loss() -> None:
    """The choice rule alone: a candidate must beat the baseline by Z standard errors,
    and an órdago gets one pessimistic sample."""
    n = 30
    weights = [1.0] * n
    # Candidate 1: a small, steady gain (chosen). Candidate 2: wide swings around a
    # slightly better mean, within the noise (not chosen).
    values = [[0.5, 0.52, 0.5 + (0.25 if i % 2 else -0.2)] for i in range(n)]
    assert search._best(weights, values, 0, [False, False, False], 0.2) == 1
    # An órdago that won its deje in every sample, never accepted: the pessimistic
    # sample (the game lost) outweighs 30 small gains.
    values = [[0.5, 0.51] for _ in range(n)]
    assert search._best(weights, values, 0, [False, True], 0.2) == 0
    assert search._best(weights, values, 0, [False, False], 0.2) == 1


def _random_states(rules: Rules, seed: int, count: int) -> list[MusState]:
    """``count`` decision points of matches played with jsbot's strategy for every seat,
    a random legal action now and then to reach unusual spots."""
    import random

    from mus_sdk.forward import random_action

    rng = random.Random(seed)
    policy = search.JsPolicy(rules.kings)
    out: list[MusState] = []
    state = MusState.new(rules, seed=seed)
    while len(out) < count:
        if state.is_terminal:
            state = MusState.new(rules, seed=rng.getrandbits(32))
            continue
        out.append(state.clone())
        state.apply(random_action(rng, state.legal_actions()) if rng.random() < 0.2 else policy(state))
    return out


def test_the_jsbot_port_always_plays_a_legal_action_and_reads_only_what_the_seat_sees() -> None:
    """On the engine's state (playouts) and on the seat's observation (the baseline) the
    port gives the same action, and a legal one, in every phase, for 2 and 4 players and
    both decks."""
    for rules in (Rules(), Rules(players=2), Rules(kings=4)):
        policy = search.JsPolicy(rules.kings)
        for state in _random_states(rules, 7, 400):
            seat = state.to_act
            assert seat is not None
            action = policy(state)
            assert state.is_legal(action), (state.phase, action, state.legal_actions())
            assert policy.decide(observation_for(state, seat)) == action


def test_the_search_bot_plays_the_port_when_told_to_take_no_samples() -> None:
    """``MUS_SEARCH_SAMPLES=0``: the bot is the port (what bots/js plays), every decision."""
    rules = Rules()
    bot = _bot(rules, 0, 0)
    policy = search.JsPolicy(rules.kings)
    for state in _random_states(rules, 3, 300):
        if state.to_act != 0:
            continue
        obs = observation_for(state, 0)
        assert bot.decide(obs) == policy.decide(obs)  # type: ignore[attr-defined]


def test_the_port_cuts_the_mus_and_discards_as_jsbot_does() -> None:
    """Examples worked by hand from bots/js/strategy.js: 31 cuts the mus, a poor hand asks
    for it; R R 4 5 keeps the kings (and throws both small cards)."""
    policy = search.JsPolicy(8)
    assert policy.mus_good(parse_cards("Ro Rc Co Ab"))
    assert not policy.mus_good(parse_cards("4o 5c 6e 7b"))
    thrown = policy.discard(parse_cards("Ro Rc 4e 5b")).cards
    assert sorted(c >> 2 for c in thrown) == [3, 4]


def test_the_opponent_model_is_trusted_against_jsbot_play_and_not_against_rulebot() -> None:
    """The check at the end of each hand: against the port (what bots/js plays) every
    betting action of the other team is the model's own, and the search runs; against
    rulebot many are not, and the bot keeps to the baseline."""
    rules = Rules(games_to_win=1)
    for opponent, trusted in ((lambda s: search.SearchBot(seed=s, samples=0), True), (lambda s: rulebot.RuleBot(), False)):
        players = [InProcessBot(search.SearchBot(seed=s, samples=2) if s % 2 == 0 else opponent(s)) for s in range(4)]
        result = play_match([SyncAdapter(p) for p in players], MatchConfig(rules=rules, seed=2, match_id="trust"))
        assert result.faults == []
        bot = players[0].bot
        assert bot.model_seen >= search.TRUST_SEEN  # type: ignore[attr-defined]
        assert bot.trusted() is trusted  # type: ignore[attr-defined]
        assert (bot.model_agreed == bot.model_seen) is trusted  # type: ignore[attr-defined]
        assert (bot.searched > 0) is trusted  # type: ignore[attr-defined]


def test_a_match_starts_as_in_a_fresh_process() -> None:
    """Whatever its process played before, the bot starts each match in the state a fresh
    bot starts it in (issue 29: the opponent model's counts were carried from match to
    match, so a league did not reproduce under --resume or --fresh-processes)."""
    rules = Rules(games_to_win=1, target_points=15)
    used = [search.SearchBot(seed=s, samples=4 if s % 2 == 0 else 0) for s in range(4)]
    play_match([SyncAdapter(InProcessBot(b)) for b in used], MatchConfig(rules=rules, seed=3, match_id="before"))
    assert used[0].model_seen > 0  # the match gave the model something to count: the test shows something
    info = MatchInfo(match_id="next", seat=0, partners=(2,), num_seats=4, rules=rules)
    fresh = search.SearchBot(seed=0, samples=4)
    for bot in (used[0], fresh):
        bot.on_match_start(info)

    def state(bot: object) -> dict[str, object]:
        out = {k: v for k, v in vars(bot).items() if k not in ("rng", "_policy")}
        out["rng"] = bot.rng.getstate()  # type: ignore[attr-defined]
        return out

    assert state(used[0]) == state(fresh)
