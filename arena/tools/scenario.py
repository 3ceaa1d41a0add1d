"""Scenario files: one hand of Mus, scripted, to settle a rule dispute or set up a situation.

A scenario is a TOML file (see ``docs/scenarios.md`` for the full format)::

    name = "TV-06: the full hand from [DE]"

    [rules]                 # optional, docs/rules.md §12 keys; defaults otherwise
    kings = 8

    [hand]
    mano = 0                # the dealer is the seat before mano
    scores = [0, 0]         # team scores before the hand
    hands = ["R 3 C A", "7 6 5 4", "S S 5 4", "R C 7 7"]
    actions = '''
    S0 no-mus
    S0 p; S1 p; S2 p; S3 p
    '''

    [expect]                # optional; `mus scenario` checks it, exit 1 on a mismatch
    scores = [11, 0]

A card is ``Ro`` (exact) or a bare rank ``R`` (any suit not used elsewhere in the file).
An action line is ``[S<seat>] <action>``, several per line separated by ``;``, ``#``
starts a comment; ``S2 seña dos_reyes`` gives a seña. This module parses and plays;
it does no I/O but :func:`load`.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mus_core import HandResult, IllegalActionError, IllegalSignalError, Rules, format_legal
from mus_core.state import MusState

from arena.records.results import format_result, result_to_json
from arena.tools.scenario_script import ScenarioError, ScriptedStep, line_of, parse_actions, resolve_cards

__all__ = [
    "Scenario", "ScenarioError", "ScenarioOutcome", "check", "format_result", "load", "outcome_to_json",
    "parse", "play", "result_to_json",
]


@dataclass
class Scenario:
    """A parsed scenario, ready to :func:`play`."""

    name: str
    rules: Rules
    mano: int
    scores: tuple[int, int]
    games_won: tuple[int, int]
    hands: list[list[int]]
    stock: list[int] | None
    seed: int
    steps: list[ScriptedStep]
    expect: dict[str, Any] = field(default_factory=dict)
    description: str = ""


@dataclass
class ScenarioOutcome:
    """What playing a scenario gave: the hand's result and any failed expectations."""

    scenario: Scenario
    result: HandResult
    mismatches: list[str]


def load(path: str | Path) -> Scenario:
    """Read and parse a scenario file.

    Raises:
        ScenarioError: unreadable or malformed file.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read {p}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{p} is not UTF-8 text") from None
    return parse(text)


def parse(text: str) -> Scenario:
    """Parse scenario text (TOML).

    Raises:
        ScenarioError: the message names the field, and the line where it can.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"not valid TOML: {exc}") from None

    def err(msg: str, fld: str, section: str | None = None, key: str | None = None) -> ScenarioError:
        return ScenarioError(msg, field=fld, line=line_of(text, key or fld.split(".")[-1], section))

    unknown = set(data) - {"name", "description", "rules", "hand", "expect"}
    if unknown:
        k = sorted(unknown)[0]
        raise err("unknown key (expected name, description, [rules], [hand], [expect])", k)
    try:
        rules = Rules.from_mapping(dict(data.get("rules", {})))
    except ValueError as exc:
        fld = str(exc).split(":")[0]
        raise ScenarioError(str(exc).split(": ", 1)[-1], field=fld, line=line_of(text, fld.split(".")[-1], "rules")) from None
    hand = data.get("hand")
    if not isinstance(hand, dict):
        raise ScenarioError("missing [hand] table", field="hand")
    known = {"mano", "scores", "games_won", "hands", "stock", "actions", "seed"}
    for k in hand:
        if k not in known:
            raise err(f"unknown key (known: {', '.join(sorted(known))})", f"hand.{k}", "hand", k)
    mano, seed, scores, games_won = _hand_numbers(hand, rules, err)
    tokens, stock_tokens = _card_tokens(hand, rules.players, err)
    hands, stock = resolve_cards(tokens, stock_tokens, err)
    steps = parse_actions(hand.get("actions", ""), text, err)
    return Scenario(
        name=str(data.get("name", "")),
        description=str(data.get("description", "")),
        rules=rules,
        mano=mano,
        scores=scores,
        games_won=games_won,
        hands=hands,
        stock=stock,
        seed=seed,
        steps=steps,
        expect=_expect(data, err),
    )


def _hand_numbers(hand: dict[str, Any], rules: Rules, err: Any) -> tuple[int, int, tuple[int, int], tuple[int, int]]:
    """``[hand]``'s ``mano``, ``seed``, ``scores`` and ``games_won``, each within its range."""

    def int_field(key: str, default: int, lo: int, hi: int) -> int:
        v = hand.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise err(f"must be an integer in {lo}..{hi}, not {v!r}", f"hand.{key}", "hand")
        return v

    def pair(key: str, hi: int) -> tuple[int, int]:
        v = hand.get(key, [0, 0])
        if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < hi for x in v)):
            raise err(f"must be two integers in 0..{hi - 1} (team 0, team 1), not {v!r}", f"hand.{key}", "hand")
        return (v[0], v[1])

    mano = int_field("mano", 0, 0, rules.players - 1)
    seed = int_field("seed", 0, 0, 2**63)
    return mano, seed, pair("scores", rules.target_points), pair("games_won", rules.games_to_win)


def _card_tokens(hand: dict[str, Any], n: int, err: Any) -> tuple[list[list[str]], list[str] | None]:
    """The cards as written: four per seat (``hands``), and the ``stock`` if given."""
    raw_hands = hand.get("hands")
    if not isinstance(raw_hands, list) or len(raw_hands) != n:
        raise err(f"must list {n} hands, one per seat from S0", "hand.hands", "hand")
    tokens: list[list[str]] = []
    for i, h in enumerate(raw_hands):
        items = h.replace(",", " ").split() if isinstance(h, str) else h
        if not isinstance(items, list) or len(items) != 4:
            raise err(f"seat S{i} must have 4 cards, got {h!r}", "hand.hands", "hand")
        tokens.append([str(t) for t in items])
    raw_stock = hand.get("stock")
    if raw_stock is None:
        return tokens, None
    if isinstance(raw_stock, str):
        return tokens, raw_stock.replace(",", " ").split()
    if isinstance(raw_stock, list):
        return tokens, [str(t) for t in raw_stock]
    raise err("must be a string or a list of cards, from the top", "hand.stock", "hand", "stock")


def _expect(data: dict[str, Any], err: Any) -> dict[str, Any]:
    """The ``[expect]`` table, each expectation of a known kind and shape."""
    expect = data.get("expect", {})
    if not isinstance(expect, dict):
        raise err("must be a table", "expect")
    for k, v in expect.items():
        if k not in _EXPECT_KEYS:
            raise err(f"unknown expectation (known: {', '.join(sorted(_EXPECT_KEYS))})", f"expect.{k}", "expect", k)
        if k == "scores" and not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) for x in v)):
            raise err(f"must be two integers (team 0, team 1), not {v!r}", "expect.scores", "expect", k)
        if k in ("lances", "winners", "points") and not isinstance(v, list):
            raise err(f"must be a list (one item per lance), not {v!r}", f"expect.{k}", "expect", k)
        if k == "ended_by" and not isinstance(v, str):
            raise err(f"must be a string such as 'count', not {v!r}", "expect.ended_by", "expect", k)
        if k == "game_winner" and v not in (0, 1, -1, "none"):
            raise err(f"must be 0, 1 or \"none\", not {v!r}", "expect.game_winner", "expect", k)
    return expect


_EXPECT_KEYS = {"scores", "game_winner", "ended_by", "lances", "winners", "points"}


def play(scenario: Scenario) -> ScenarioOutcome:
    """Play the scripted hand through the engine and check the expectations.

    Raises:
        ScenarioError: a step is illegal (with seat, action and the legal set), a step
            names the wrong seat, the script ends before the hand does, or goes on after.
    """
    try:
        state = MusState.from_deal(
            scenario.rules,
            scenario.hands,
            mano=scenario.mano,
            stock=scenario.stock,
            scores=scenario.scores,
            games_won=scenario.games_won,
            seed=scenario.seed,
        )
    except ValueError as exc:
        raise ScenarioError(str(exc), field="hand") from None
    for step in scenario.steps:
        if state.hand_results:
            raise ScenarioError(f"the hand is over; extra step {step.text!r}", field="hand.actions", line=step.line)
        if step.sena is not None:
            assert step.seat is not None
            try:
                state.give_sena(step.seat, step.sena)
            except IllegalSignalError as exc:
                raise ScenarioError(str(exc), field="hand.actions", line=step.line) from None
            continue
        assert step.action is not None
        if step.seat is not None and step.seat != state.to_act:
            raise ScenarioError(
                f"{step.text!r}: S{step.seat} is not to act, S{state.to_act} is "
                f"(legal: {format_legal(state.legal_actions())})",
                field="hand.actions",
                line=step.line,
            )
        try:
            state.apply(step.action)
        except IllegalActionError as exc:
            raise ScenarioError(str(exc), field="hand.actions", line=step.line) from None
    if not state.hand_results:
        legal = format_legal(state.legal_actions())
        raise ScenarioError(
            f"the script ended before the hand did; S{state.to_act} is to act (legal: {legal})",
            field="hand.actions",
        )
    result = state.hand_results[0]
    return ScenarioOutcome(scenario, result, check(scenario.expect, result))


def check(expect: dict[str, Any], result: HandResult) -> list[str]:
    """Compare expectations with a result; one message per mismatch."""
    out: list[str] = []
    got = result_to_json(result)
    if "scores" in expect and list(expect["scores"]) != got["scores_after"]:
        out.append(f"scores: expected {expect['scores']}, got {got['scores_after']}")
    if "game_winner" in expect:
        want = expect["game_winner"]
        want = None if want in ("none", -1) else want
        if want != got["game_winner"]:
            out.append(f"game_winner: expected {want}, got {got['game_winner']}")
    if "ended_by" in expect and expect["ended_by"] != got["ended_by"]:
        out.append(f"ended_by: expected {expect['ended_by']!r}, got {got['ended_by']!r}")
    for key, col in (("lances", "outcome"), ("winners", "winner_seat"), ("points", "points")):
        if key in expect:
            want_list = list(expect[key])
            have = [lr[col] for lr in got["lances"]]
            if key == "winners":
                want_list = [None if w in ("none", -1) else w for w in want_list]
            if want_list != have:
                out.append(f"{key}: expected {want_list}, got {have}")
    return out


def outcome_to_json(outcome: ScenarioOutcome) -> str:
    """The ``--json`` output of ``mus scenario``."""
    doc = {
        "name": outcome.scenario.name,
        "rules": outcome.scenario.rules.to_mapping(),
        "result": result_to_json(outcome.result),
        "expectations_checked": sorted(outcome.scenario.expect),
        "mismatches": outcome.mismatches,
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)
