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
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import (
    CARDS,
    SUIT_CHARS,
    Action,
    HandResult,
    IllegalActionError,
    IllegalSignalError,
    MusState,
    Rules,
    Sena,
    format_legal,
    parse_rank,
)
from arena.results import format_result, result_to_json

__all__ = [
    "Scenario", "ScenarioError", "ScenarioOutcome", "check", "format_result", "load", "outcome_to_json",
    "parse", "play", "result_to_json",
]


class ScenarioError(ValueError):
    """A malformed scenario, or a scripted action that is illegal; names field and line."""

    def __init__(self, message: str, *, field: str | None = None, line: int | None = None) -> None:
        self.field = field
        self.line = line
        where = ", ".join(x for x in (f"line {line}" if line else "", f"field {field}" if field else "") if x)
        super().__init__(f"{where}: {message}" if where else message)


@dataclass(frozen=True)
class ScriptedStep:
    """One scripted step: an action or a seña, with the seat named (if any) and its line."""

    seat: int | None
    action: Action | None
    sena: Sena | None
    line: int
    text: str


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


def _line_of(text: str, key: str, section: str | None = None) -> int | None:
    """Best-effort line number of ``key = ...`` (inside ``[section]`` when given)."""
    in_section = section is None
    for i, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped.startswith("["):
            in_section = section is None or stripped.strip("[] ") == section
            continue
        if in_section and re.match(rf"{re.escape(key)}\s*=", stripped):
            return i
    return None


_SEAT_RE = re.compile(r"^S(\d+)\s+(.*)$", re.IGNORECASE)


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
        return ScenarioError(msg, field=fld, line=_line_of(text, key or fld.split(".")[-1], section))

    unknown = set(data) - {"name", "description", "rules", "hand", "expect"}
    if unknown:
        k = sorted(unknown)[0]
        raise err("unknown key (expected name, description, [rules], [hand], [expect])", k)
    try:
        rules = Rules.from_mapping(dict(data.get("rules", {})))
    except ValueError as exc:
        fld = str(exc).split(":")[0]
        raise ScenarioError(str(exc).split(": ", 1)[-1], field=fld, line=_line_of(text, fld.split(".")[-1], "rules")) from None
    hand = data.get("hand")
    if not isinstance(hand, dict):
        raise ScenarioError("missing [hand] table", field="hand")
    known = {"mano", "scores", "games_won", "hands", "stock", "actions", "seed"}
    for k in hand:
        if k not in known:
            raise err(f"unknown key (known: {', '.join(sorted(known))})", f"hand.{k}", "hand", k)
    n = rules.players

    def int_field(key: str, default: int, lo: int, hi: int) -> int:
        v = hand.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise err(f"must be an integer in {lo}..{hi}, not {v!r}", f"hand.{key}", "hand")
        return v

    mano = int_field("mano", 0, 0, n - 1)
    seed = int_field("seed", 0, 0, 2**63)

    def pair(key: str, hi: int) -> tuple[int, int]:
        v = hand.get(key, [0, 0])
        if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < hi for x in v)):
            raise err(f"must be two integers in 0..{hi - 1} (team 0, team 1), not {v!r}", f"hand.{key}", "hand")
        return (v[0], v[1])

    scores = pair("scores", rules.target_points)
    games_won = pair("games_won", rules.games_to_win)

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
    stock_tokens: list[str] | None = None
    if raw_stock is not None:
        if isinstance(raw_stock, str):
            stock_tokens = raw_stock.replace(",", " ").split()
        elif isinstance(raw_stock, list):
            stock_tokens = [str(t) for t in raw_stock]
        else:
            raise err("must be a string or a list of cards, from the top", "hand.stock", "hand", "stock")
    hands, stock = _resolve_cards(tokens, stock_tokens, err)
    steps = _parse_actions(hand.get("actions", ""), text, err)
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
        expect=expect,
    )


def _resolve_cards(tokens: list[list[str]], stock_tokens: list[str] | None, err: Any) -> tuple[list[list[int]], list[int] | None]:
    """Exact cards first, then bare ranks take the lowest free suit."""
    used: set[int] = set()
    exact: dict[tuple[int, int], int] = {}
    all_tokens = [(s, i, t) for s, toks in enumerate(tokens) for i, t in enumerate(toks)]
    stock_list = stock_tokens or []
    where = "hand.hands"
    for s, i, t in all_tokens + [(-1, i, t) for i, t in enumerate(stock_list)]:
        fld = where if s >= 0 else "hand.stock"
        if len(t) >= 2 and t[-1].lower() in SUIT_CHARS and not t.isdigit():
            try:
                card = CARDS[parse_rank(t[:-1]) * 4 + SUIT_CHARS.index(t[-1].lower())]
            except ValueError as exc:
                raise err(str(exc), fld, "hand", fld.split(".")[1]) from None
            if card in used:
                raise err(f"card {card} appears twice", fld, "hand", fld.split(".")[1])
            used.add(card)
            exact[(s, i)] = card
    hands: list[list[int]] = [[0] * 4 for _ in tokens]
    stock: list[int] | None = [0] * len(stock_list) if stock_tokens is not None else None
    for s, i, t in all_tokens + [(-1, i, t) for i, t in enumerate(stock_list)]:
        fld = where if s >= 0 else "hand.stock"
        found = exact.get((s, i))
        if found is None:
            try:
                rank = parse_rank(t)
            except ValueError as exc:
                raise err(str(exc), fld, "hand", fld.split(".")[1]) from None
            free = [r for r in range(rank * 4, rank * 4 + 4) if r not in used]
            if not free:
                raise err(f"no {t} left: a rank has only 4 cards", fld, "hand", fld.split(".")[1])
            found = CARDS[free[0]]
            used.add(found)
        if s >= 0:
            hands[s][i] = found
        else:
            assert stock is not None
            stock[i] = found
    if stock is not None and len(stock) != 40 - 4 * len(tokens):
        raise err(f"the stock must hold the other {40 - 4 * len(tokens)} cards, got {len(stock)}", "hand.stock", "hand", "stock")
    return hands, stock


def _parse_actions(raw: Any, text: str, err: Any) -> list[ScriptedStep]:
    if isinstance(raw, list):
        lines = [str(x) for x in raw]
        base = _line_of(text, "actions", "hand") or 0
        offsets = [base] * len(lines)
    elif isinstance(raw, str):
        lines = raw.split("\n")
        base = _line_of(text, "actions", "hand") or 0
        # With a multi-line string the content starts on the line after the key.
        # TOML drops the newline right after an opening triple quote; then the content
        # starts on the next line. Otherwise it starts on the key's own line.
        key_line = text.splitlines()[base - 1] if base else ""
        opened_alone = bool(re.search(r"=\s*(\"\"\"|\'\'\')\s*$", key_line))
        start = base + 1 if opened_alone or raw.startswith("\n") else base
        offsets = [start + i for i in range(len(lines))]
    else:
        raise err("must be a string or a list of strings", "hand.actions", "hand", "actions")
    steps: list[ScriptedStep] = []
    for line_text, line_no in zip(lines, offsets, strict=False):
        body = line_text.split("#", 1)[0]
        for part in body.split(";"):
            item = part.strip()
            if not item:
                continue
            seat: int | None = None
            m = _SEAT_RE.match(item)
            if m:
                seat, item = int(m.group(1)), m.group(2).strip()
            words = item.split()
            if words[0].lower() in ("seña", "sena", "signal"):
                if len(words) != 2:
                    raise ScenarioError(f"a seña needs one name: {part.strip()!r}", field="hand.actions", line=line_no)
                try:
                    sena = Sena[words[1].upper()]
                except KeyError:
                    names = ", ".join(s.name.lower() for s in Sena)
                    raise ScenarioError(f"unknown seña {words[1]!r} (known: {names})", field="hand.actions", line=line_no) from None
                if seat is None:
                    raise ScenarioError("a seña must name its seat (e.g. 'S2 seña duples')", field="hand.actions", line=line_no)
                steps.append(ScriptedStep(seat, None, sena, line_no, part.strip()))
                continue
            try:
                action = Action.parse(item)
            except ValueError as exc:
                raise ScenarioError(str(exc), field="hand.actions", line=line_no) from None
            steps.append(ScriptedStep(seat, action, None, line_no, part.strip()))
    return steps


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
