"""What the HTML report shows, as plain JSON values: a match's hands frame by frame,
and a league's summary.

A hand log holds each hand's deal and every decision; the cards a seat holds after a
discard round, the declarations, the lances opening and closing and the bet on the
table come from re-playing those decisions through the engine, as :mod:`arena.tools.replay`
does. Each hand is re-played from its own logged deal (``MusState.from_deal`` with the
match's seed and the hand's number draws the same reshuffles), so one broken hand never
hides the next.

The data carries every seat's cards: the viewer shows a seat's view by hiding what the
seat did not see (the information rule of ``mus replay --seat``: other seats' cards
until the count, which discards they made beyond how many, the señas it did not see).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from mus_core import (
    Action,
    IllegalActionError,
    IllegalSignalError,
    Rules,
    Sena,
    format_cards,
    format_legal,
    parse_cards,
)
from mus_core.state import MusState

from arena.common import boundedjson
from arena.league.standings import compute_standings
from arena.records.handlog import HandLog, HandLogError, read_log
from arena.records.narrate import STEP_EVENTS, bet_text, event_text
from arena.records.results import format_result
from arena.tools.replay import sena_seen_by

LANCE_NAMES = ("grande", "chica", "pares", "juego", "punto")


def _seed_text(seed: object) -> str:
    """A seed as hex text: JavaScript numbers stop being exact at 2**53."""
    return hex(seed) if isinstance(seed, int) else str(seed)


def _phase(state: MusState) -> str:
    lance = state.current_lance
    return lance.name.lower() if lance is not None else state.phase.name.lower()


def _count_lines(state: MusState) -> list[str]:
    """The itemised count of the hand just finished, lance by lance, worded as
    ``mus replay`` and ``mus scenario`` word it."""
    text = format_result(state.hand_results[-1]).splitlines()
    return [line.strip() for line in text if line.strip().split(" ", 1)[0] in LANCE_NAMES]


def hand_data(rules: Rules, seed: int, rec: dict[str, Any], games: tuple[int, int]) -> dict[str, Any]:
    """One logged hand as the viewer's frames: ``deal`` (frame 0), then one entry of
    ``steps`` per decision (what was done, and what followed), then the count (``result``)
    or where it stopped (``stopped``). ``error`` says where a re-play broke off: the
    steps after it are shown as logged, without the state they led to."""
    deal = rec.get("deal") or {}
    out: dict[str, Any] = {
        "n": rec.get("hand"), "game": rec.get("game"), "finished": rec.get("finished", True) is not False,
        "dealer": deal.get("dealer"), "mano": deal.get("mano"), "scores": deal.get("scores"),
        "dealt": [str(h).split() for h in deal.get("hands", [])], "steps": [], "error": None,
        "result": rec.get("result"), "stopped": rec.get("stopped"), "count": [],
    }
    state = _dealt_state(rules, seed, rec, games, out)
    seen = 0
    if state is not None:
        out["events"], seen = _new_events(state, 0)
    steps = rec.get("steps", [])
    for i, step in enumerate(steps):
        frame: dict[str, Any] = {
            "s": step.get("seat"), "a": step.get("action"), "id": step.get("id"), "ms": step.get("ms"),
            "sena": step.get("sena"), "fault": step.get("fault"),
        }
        out["steps"].append(frame)
        if state is None:
            continue
        seat = step.get("seat")
        if seat != state.to_act:
            out["error"] = f"step {i}: logged seat S{seat}, but S{state.to_act} is to act"
            state = None
            continue
        frame["p"] = _phase(state)
        frame["legal"] = format_legal(state.legal_actions())
        hands_before = state.hands
        results_before = len(state.hand_results)
        try:
            if frame["sena"]:
                state.give_sena(seat, Sena[str(frame["sena"]).upper()])
                frame["sv"] = list(sena_seen_by(state, seat))
            state.apply(Action.parse(str(step["action"])))
        except (IllegalActionError, IllegalSignalError, ValueError, KeyError) as exc:
            out["error"] = f"step {i}: S{seat} {step.get('action')!r} cannot be applied: {exc}"
            state = None
            continue
        if len(state.hand_results) > results_before:
            out["count"] = _count_lines(state)
            if i + 1 < len(steps):
                out["error"] = f"step {i}: the hand is over, but {len(steps) - i - 1} more step(s) are logged"
                out["steps"] += [{"s": st.get("seat"), "a": st.get("action"), "fault": st.get("fault")}
                                 for st in steps[i + 1:]]
            break  # the hand is over: the next hand's events are not this one's
        frame["ev"], seen = _new_events(state, seen)
        if state.hands != hands_before:
            frame["hands"] = [format_cards(h).split() for h in state.hands]
        frame["bet"] = bet_text(state.bet)
        frame["sc"] = list(state.scores)
    else:
        if state is not None and out["finished"]:
            out["error"] = "the logged steps do not finish the hand"
    return out


def _dealt_state(rules: Rules, seed: int, rec: dict[str, Any], games: tuple[int, int],
                 out: dict[str, Any]) -> MusState | None:
    """The hand's state as dealt, from its logged deal; None (with ``out["error"]`` saying
    why) when the logged deal cannot be played."""
    deal = rec.get("deal") or {}
    try:
        return MusState.from_deal(
            rules, [parse_cards(h) for h in deal["hands"]], mano=int(deal["mano"]), stock=parse_cards(deal["stock"]),
            scores=(int(deal["scores"][0]), int(deal["scores"][1])), games_won=games, seed=seed,
            hand_no=int(rec["hand"]), game_no=int(rec["game"]))
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        out["error"] = f"cannot re-play the hand from its logged deal ({exc})"
        return None


def _new_events(state: MusState, seen: int) -> tuple[list[str], int]:
    """The public events of the hand since the ``seen``-th, as text."""
    events = state.history_events
    # A step's own action and seña are shown with the step (the seña to those who saw it).
    return [event_text(ev) for ev in events[seen:] if ev.kind not in STEP_EVENTS], len(events)


def match_data(log: HandLog) -> dict[str, Any]:
    """A whole match for the viewer: its header (seats, rules, time control), every
    hand (:func:`hand_data`), its result and the lines of the log that could not be read."""
    header = log.header
    try:
        rules = Rules.from_mapping(dict(header.get("rules", {})))
    except (ValueError, TypeError) as exc:
        raise HandLogError(f"{log.path}: its rules cannot be read: {exc}") from None
    seed = int(header.get("seed", 0))
    games = [0, 0]
    hands = []
    for rec in log.hands:
        hands.append(hand_data(rules, seed, rec, (games[0], games[1])))
        res = rec.get("result") or {}
        if res.get("game_over") and res.get("game_winner") in (0, 1):
            games[res["game_winner"]] += 1
            if games[res["game_winner"]] >= rules.games_to_win:
                games = [0, 0]  # a vaca is won: the games count starts again
    footer = (log.footer or {}).get("result")
    if isinstance(footer, dict):
        footer = {**footer, "seed": _seed_text(footer.get("seed"))}
    return {
        "id": header.get("match_id", log.path.stem),
        "seed": _seed_text(header.get("seed")),
        "rules": header.get("rules", {}),
        "players": rules.players,
        "time": {k: header.get(k) for k in ("decision_ms", "time_bank_ms", "max_faults")},
        "seats": [{k: s.get(k) for k in ("seat", "entry", "bot", "version")} for s in header.get("seats", [])],
        "hands": hands,
        "result": footer,
        "errors": log.errors,
    }


def match_summary(log: HandLog, data: dict[str, Any]) -> dict[str, Any]:
    """One line of the report's match list (what the index holds for every match)."""
    res = data.get("result") or {}
    seats = data["seats"]
    team = [" + ".join(dict.fromkeys(str(s.get("entry") or s.get("bot")) for s in seats[t::2])) for t in (0, 1)]
    return {
        "id": data["id"], "teams": team, "winner": res.get("winner_team"), "games": res.get("games_won"),
        "reason": res.get("reason", "unfinished"), "hands": len(data["hands"]), "stones": res.get("stones"),
        "faults": sum(1 for h in data["hands"] for st in h["steps"] if st.get("fault")),
        "broken": sum(1 for h in data["hands"] if h.get("error")) + len(log.errors),
    }


def league_data(out_dir: Path) -> dict[str, Any] | None:
    """The league's name, entries, standings and crosstable, from ``league.json``,
    ``results.jsonl`` and ``standings.json`` (or the standings computed from the
    results, for a league still running or interrupted); None for a folder that is
    not a league's. Each file is read within :mod:`arena.common.boundedjson`'s limits.

    Raises:
        HandLogError: a league file no arena wrote (a value of the wrong type, a line
            over the limits), naming it.
    """
    try:
        config = boundedjson.read_file(out_dir / "league.json")
    except (OSError, ValueError):
        return None
    entries = config.get("entries", []) if isinstance(config, dict) else None
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "name" in e for e in entries):
        raise HandLogError(f"{out_dir / 'league.json'}: its entries cannot be read: not a league this arena wrote")
    names = [str(e["name"]) for e in entries]
    results = _results(out_dir / "results.jsonl", names)
    try:
        standings = boundedjson.read_file(out_dir / "standings.json")
        # complete: false: standings written at an interruption (Ctrl-C), not the league's end.
        final = not (isinstance(standings, dict) and standings.get("complete", True) is False)
    except (OSError, ValueError):
        target = (config.get("rules") or {}).get("target_points")
        standings = compute_standings(names, {}, results, target_points=target, **_scale(config, names)).to_json()
        final = False
    if not isinstance(standings, dict):
        raise HandLogError(f"{out_dir / 'standings.json'}: not the standings this arena writes")
    rows = standings.get("standings", [])
    return {
        "name": config.get("name", out_dir.name), "entries": names, "final": final,
        # Entries whose bot did not start in some matches (their team forfeited them): a
        # column and a line of their own, as on the console (a forfeit is not play).
        "no_start": [{"name": e.get("name"), "failed": e.get("start_failures", 0), "matches": e.get("matches")}
                     for e in rows if isinstance(e, dict) and e.get("start_failures")],
        "standings": rows, "cross": standings.get("crosstable", {}),
        "results": {str(r.get("match_id")): {"team0": r["team0"], "team1": r["team1"], "log": r.get("log")}
                    for r in results},
        "rules": config.get("rules", {}), "duplicate": config.get("duplicate"),
        # What the table cannot promise (small samples, wide pairs, a field that one rating
        # per entry does not describe), as under the console's table.
        "note": standings.get("note") if isinstance(standings.get("note"), str) else None,
    }


def _scale(config: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """The league's ``[standings] anchor`` as league.json records it (nothing for a league
    of an arena that did not record it, or an anchor that is not one of its entries)."""
    table = config.get("standings")
    if not isinstance(table, dict) or table.get("anchor") not in names:
        return {}
    rating = table.get("anchor_rating")
    if isinstance(rating, bool) or not isinstance(rating, (int, float)) or not math.isfinite(rating):
        return {}
    return {"anchor": str(table["anchor"]), "anchor_rating": float(rating)}


def _results(path: Path, names: list[str]) -> list[dict[str, Any]]:
    """The results of ``results.jsonl`` between the league's entries, line by line
    within the readers' limits; a line cut by a kill is passed over (the league's resume
    rewrites it)."""
    results = []
    try:
        with open(path, "rb") as f:
            for line in boundedjson.lines(f):
                if line.too_long:
                    raise HandLogError(f"{path}: {boundedjson.limit_text(line.number)}: not a league this arena wrote")
                try:
                    rec = boundedjson.loads(line.data)
                except boundedjson.JSONLimitError as exc:
                    raise HandLogError(f"{path}: line {line.number}: {exc}: not a league this arena wrote") from None
                except ValueError:
                    continue
                if isinstance(rec, dict) and rec.get("team0") in names and rec.get("team1") in names:
                    results.append(rec)
    except OSError:
        pass
    return results


def find_logs(folder: Path) -> list[Path]:
    """The hand logs of a league (``logs/*.jsonl``) or a match folder (``*.jsonl``), by name."""
    logs = folder / "logs"
    return sorted((logs if logs.is_dir() else folder).glob("*.jsonl"))


__all__ = ["find_logs", "hand_data", "league_data", "match_data", "match_summary", "read_log"]
