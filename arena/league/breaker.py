"""Giving up on an entry whose bot does not start: after :data:`GIVE_UP_AFTER` of its
matches in a row in which it failed to start, a league run stops starting it.

A bot that hangs at start costs the start timeout (10 s) in every one of its matches,
and a bot that does not start in three matches in a row will not start in the next:
its other matches in this run are not tried. They count as start failures (forfeits of
its team) in the run's standings, but are not saved in ``results.jsonl``: ``--resume``
plays them, trying the bot afresh (once it is fixed). The matches it did fail to start
in are saved as any other match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from arena.driver.match import MatchConfig
from arena.league.config import LeagueConfig
from arena.league.schedule import ScheduledMatch
from arena.runner.match import (
    MatchOutcome,
    Seating,
    not_started_result,
    seat_start_errors,
    start_failed_seats,
)

GIVE_UP_AFTER = 3
"""Matches in a row in which an entry's bot failed to start, after which a run stops
trying it."""

NOT_TRIED = "not tried"
"""How a seat's start error begins in a match not tried (the console and report say so)."""

log = structlog.get_logger()


@dataclass
class StartBreaker:
    """Counts, per entry, its matches in a row (as they are recorded) in which its bot
    failed to start; says which entries are given up, and makes the records of the
    matches not tried because of them."""

    config: LeagueConfig
    limit: int = GIVE_UP_AFTER
    streak: dict[str, int] = field(default_factory=dict)
    given_up: dict[str, str] = field(default_factory=dict)
    """Entry -> the error of its last failed start."""
    not_tried: list[dict[str, Any]] = field(default_factory=list)
    """The records of the matches not tried (results.jsonl's form, never written there)."""

    def observe(self, rec: dict[str, Any]) -> None:
        """A match was recorded: count its entries' start failures (a start resets the
        count). An entry reaching the limit is given up, and said so once (a warning)."""
        teams = (str(rec["team0"]), str(rec["team1"]))
        failed = {teams[seat & 1] for seat in start_failed_seats(rec)}
        for entry in dict.fromkeys(teams):
            self.streak[entry] = self.streak.get(entry, 0) + 1 if entry in failed else 0
            if self.limit and self.streak[entry] >= self.limit and entry not in self.given_up:
                errors = seat_start_errors(rec)
                seat = min(s for s in start_failed_seats(rec) if teams[s & 1] == entry)
                # What went wrong, without the stderr excerpt (the summary at the end quotes it).
                error = errors.get(seat, "?").split("\n", 1)[0].split("; its stderr", 1)[0]
                self.given_up[entry] = error
                log.warning("league.entry_given_up", entry=entry, failed_in_a_row=self.streak[entry],
                            detail=f"{entry} did not start in {self.streak[entry]} matches in a row: its other "
                                   f"matches are not tried in this run (they count as start failures); "
                                   "fix the bot (mus check BOT) and play them with --resume",
                            last_error=error)

    def skip(self, m: ScheduledMatch) -> bool:
        """Whether ``m`` involves an entry given up: then it is not played, and its record
        (a forfeit of that team, or an abort if both are) is kept in :attr:`not_tried`."""
        out = [e for e in (m.team0, m.team1) if e in self.given_up]
        if not out:
            return False
        _, names = self.config.seats(m.team0, m.team1)
        errors = {seat: f"{NOT_TRIED}: {name} did not start in {self.limit} matches in a row in this run "
                        f"(last: {self.given_up[name]})"
                  for seat, name in enumerate(names) if name in out}
        text = "\n".join(f"S{seat}: {error}" for seat, error in sorted(errors.items()))
        mc = MatchConfig(rules=self.config.rules, seed=m.seed, match_id=m.match_id)
        outcome = MatchOutcome(m.match_id, Seating(names), not_started_result(mc, errors, text), Path(""), text,
                               tuple(sorted(errors)))
        self.not_tried.append({"team0": m.team0, "team1": m.team1, "deal": m.deal, **outcome.to_json(),
                               "not_tried": True})
        return True
