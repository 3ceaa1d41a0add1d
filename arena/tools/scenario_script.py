"""A scenario's hand as written: its cards (``Ro`` exact, ``R`` any free suit) and its
action script (``S0 no-mus; S1 p``, ``S2 seña duples``), read into the engine's cards
and :class:`ScriptedStep` items; and the error that names a scenario's field and line.

:mod:`arena.tools.scenario` reads the whole file with these and plays it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mus_core import CARDS, SUIT_CHARS, Action, Sena, parse_rank


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


def line_of(text: str, key: str, section: str | None = None) -> int | None:
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


def resolve_cards(tokens: list[list[str]], stock_tokens: list[str] | None, err: Any) -> tuple[list[list[int]], list[int] | None]:
    """The seats' cards and the stock's as card codes: exact cards first, then bare
    ranks take the lowest free suit."""
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


def parse_actions(raw: Any, text: str, err: Any) -> list[ScriptedStep]:
    """The ``actions`` of ``[hand]`` (a string of lines, or a list of them) as steps,
    each with its line in ``text``."""
    if isinstance(raw, list):
        lines = [str(x) for x in raw]
        base = line_of(text, "actions", "hand") or 0
        offsets = [base] * len(lines)
    elif isinstance(raw, str):
        lines = raw.split("\n")
        base = line_of(text, "actions", "hand") or 0
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
