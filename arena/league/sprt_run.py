"""One run of ``mus sprt``: its settings (``sprt.json``), the league it plays, the pairs
it feeds to the test and its verdict (``verdict.json``).

The statistics live in :mod:`arena.league.sprt`; this module is the orchestration the
command used to carry, so that ``arena/cli/sprt.py`` only parses options and prints.
The matches are a two-entry duplicate league (:data:`NEW` and :data:`OLD`): deal ``d``
is played as matches ``2d`` and ``2d + 1``, the teams exchanging seats, and the pair is
one observation of the test, taken in deal order (so the verdict depends on the seed
only, not on ``--jobs``).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mus_core import Rules

from arena.common import boundedjson
from arena.league.config import Entry, LeagueConfig
from arena.league.sprt import PairTracker, SprtParams, Verdict
from arena.remote import grants
from arena.remote.manifest import BotSpec, parse_bot_spec

NEW, OLD = "new", "old"
"""The two entries of the test's league (their names in the results and hand logs)."""
SPRT_FILE = "sprt.json"
"""The test's settings, written when it starts and checked on ``--resume``."""
VERDICT_FILE = "verdict.json"
"""The verdict, the counts and the estimate, written when the run ends."""

EXIT_H1, EXIT_H0, EXIT_STOPPED, EXIT_NO_VERDICT = 0, 1, 2, 3
"""The exit code of each outcome (``mus sprt``'s, recorded in verdict.json): H1
accepted; H0 accepted; stopped before deciding (a bot did not start); ``max_pairs``
pairs played without a verdict."""

DEFAULTS: dict[str, Any] = {
    "elo0": 0.0, "elo1": 20.0, "alpha": 0.05, "beta": 0.05, "max_pairs": 3000,
    "decision_ms": 2000, "time_bank_ms": 120_000, "max_faults": 5,
}
"""Why these: a change worth keeping in a Mus bot is worth tens of Elo per match
(docs/league.md, "mus sprt"); elo1 = 20 decides in a few hundred to a thousand or so pairs
(fewer when the twins split), an evening on two cores; 5% errors as fishtest."""


class SprtError(Exception):
    """Settings that cannot start or resume a test; the message is one line for the user."""


def bot_text(bot: str) -> str:
    """A bot as stored in sprt.json: a path made absolute (a resume may run elsewhere), an address as is."""
    path = Path(bot)
    return str(path.resolve()) if path.exists() else bot


def fmt_elo(x: float) -> str:
    """An Elo difference for people: ``+12``, ``-3``, ``+inf``."""
    return f"{round(x):+d}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def write_json(path: Path, doc: dict[str, Any]) -> None:
    """Write ``doc`` to ``path`` whole or not at all (a temporary file, then a rename)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    os.replace(tmp, path)


def settings_for(new: str, old: str, given: dict[str, Any], rules: Rules | None, out: Path,
                 resume: bool) -> dict[str, Any]:
    """The test's settings: a fresh test's from ``given`` (the options; None where not
    given, then :data:`DEFAULTS`); a resumed one's from ``out``'s sprt.json, any option
    given again having to agree.

    Raises:
        SprtError: no sprt.json to resume, an unreadable one, or an option that disagrees.
    """
    if not resume:
        settings = {"new": bot_text(new), "old": bot_text(old),
                    **{k: DEFAULTS[k] if given.get(k) is None else given[k] for k in DEFAULTS}}
        settings["rules"] = (rules or Rules()).to_mapping()
        return settings
    try:
        stored: dict[str, Any] = boundedjson.read_file(out / SPRT_FILE)
        if not isinstance(stored, dict):
            raise ValueError("not a JSON object")
    except FileNotFoundError:
        raise SprtError(f"{out / SPRT_FILE}: missing: {out} holds no test of mus sprt to resume; "
                        "run without --resume") from None
    except (OSError, ValueError) as exc:
        raise SprtError(f"{out / SPRT_FILE}: unreadable ({exc}); cannot resume") from None
    asked = {"new": bot_text(new), "old": bot_text(old), **{k: v for k, v in given.items() if v is not None}}
    if rules is not None:
        asked["rules"] = rules.to_mapping()
    for key, value in asked.items():
        if stored.get(key) != value:
            raise SprtError(
                f"{out}: the test started with {key} = {stored.get(key)!r}, not {value!r}: a test resumes with the "
                "settings it started with (changing its hypotheses or error rates after seeing results would void "
                f"its guarantees); give the same, or leave the option out. Settings: {out / SPRT_FILE}")
    return stored


@dataclass(frozen=True)
class SprtOutcome:
    """How a run ended: the exit code, one line saying it, and verdict.json's document."""

    code: int
    text: str
    doc: dict[str, Any]


class SprtRun:
    """One test: its settings, its league, and the pairs fed to it as matches finish.

    Raises (when built):
        SprtError: hypotheses or error rates the test cannot use, or a bot or rules that
            do not load.
    """

    def __init__(self, settings: dict[str, Any], *, sandbox: str = "default") -> None:
        self.settings = settings
        self.params = SprtParams(settings["elo0"], settings["elo1"], settings["alpha"], settings["beta"])
        try:
            self.params.check()
            self.specs: tuple[BotSpec, BotSpec] = (
                grants.ungranted(parse_bot_spec(settings["new"]), sandbox),
                grants.ungranted(parse_bot_spec(settings["old"]), sandbox))
            self.rules = Rules.from_mapping(settings["rules"])
        except ValueError as exc:  # ManifestError is a ValueError
            raise SprtError(str(exc)) from None
        self.sandbox = sandbox
        self.tracker = PairTracker(self.params, settings["max_pairs"])

    @property
    def max_pairs(self) -> int:
        """Pairs after which the test stops without a verdict."""
        return int(self.settings["max_pairs"])

    def league(self, *, seed: int | None, jobs: int, fresh_processes: bool) -> LeagueConfig:
        """The duplicate league of :data:`NEW` against :data:`OLD` that plays the test's matches."""
        s = self.settings
        return LeagueConfig(
            name="sprt", entries=(Entry(NEW, self.specs[0]), Entry(OLD, self.specs[1])), rules=self.rules,
            seed=seed, matches_per_pairing=2 * self.max_pairs, duplicate=True, decision_ms=s["decision_ms"],
            time_bank_ms=s["time_bank_ms"], max_faults=s["max_faults"], jobs=jobs, sandbox=self.sandbox,
            fresh_processes=fresh_processes)

    def write_settings(self, out: Path) -> None:
        """Write sprt.json (when a fresh test starts: the folder is prepared and locked)."""
        write_json(out / SPRT_FILE, self.settings)

    @property
    def decided(self) -> bool:
        """True once the test has a verdict or has played ``max_pairs`` pairs."""
        return self.tracker.verdict is not Verdict.CONTINUE

    def add_match(self, match_id: str, team0: str, winner: int | None, not_started: bool
                  ) -> list[tuple[int, float | None]]:
        """Count one finished match (``match_id`` ends in ``--k``: deal ``k // 2``, twin
        ``k % 2``; ``team0`` the entry on team 0). Returns the pairs this completed, in
        deal order, each ``(deal, NEW's score over the pair or None when void)``: a pair
        is void when a bot did not start or a match was aborted."""
        k = int(match_id.rsplit("--", 1)[1])
        new_side = 0 if team0 == NEW else 1
        score = None if winner is None or not_started else (1.0 if winner == new_side else 0.0)
        return self.tracker.add(k // 2, k % 2, score)

    def status(self) -> str:
        """The test so far: pairs and their outcomes, LLR and bounds, Elo with its 95% interval, LOS."""
        t = self.tracker
        c = t.counts
        est = t.estimate()
        p = t.params
        void = f", {t.void} void" if t.void else ""
        raw = sum(x * n for x, n in c.items()) / t.pairs if t.pairs else 0.5
        return (f"pairs {t.pairs} (2-0: {c.get(1.0, 0)}, 1-1: {c.get(0.5, 0)}, 0-2: {c.get(0.0, 0)}{void}), "
                f"score {raw:.3f}, LLR {t.llr:+.2f} [{p.lower:.2f}, {p.upper:.2f}], "
                f"Elo {fmt_elo(est.elo)} [{fmt_elo(est.elo_low)}, {fmt_elo(est.elo_high)}], LOS {100 * est.los:.1f}%")

    def outcome(self) -> SprtOutcome:
        """The verdict so far, its exit code and verdict.json's document."""
        tracker, p = self.tracker, self.params
        if tracker.verdict is Verdict.H1:
            text, code = f"H1 accepted: {NEW} is better than {OLD} (by elo1 = {p.elo1:g} rather than elo0 = {p.elo0:g})", EXIT_H1
        elif tracker.verdict is Verdict.H0:
            text, code = (f"H0 accepted: {NEW} is not better than {OLD} by elo1 = {p.elo1:g} (rather elo0 = {p.elo0:g} "
                          "or less)"), EXIT_H0
        elif tracker.exhausted:
            text, code = f"no verdict: {self.max_pairs} pairs played and the LLR stayed within its bounds", EXIT_NO_VERDICT
        else:
            text, code = "no verdict yet: the test stopped before deciding", EXIT_STOPPED
        est = tracker.estimate()
        doc = {"verdict": tracker.verdict.value if not tracker.exhausted else "none",
               "exit_code": code, "pairs": tracker.pairs, "void_pairs": tracker.void,
               "counts": {"2-0": tracker.counts.get(1.0, 0), "1-1": tracker.counts.get(0.5, 0),
                          "0-2": tracker.counts.get(0.0, 0)},
               "llr": round(tracker.llr, 4), "lower": round(p.lower, 4), "upper": round(p.upper, 4),
               "params": asdict(p), "estimate": {k: (v if not isinstance(v, float) or math.isfinite(v) else str(v))
                                                 for k, v in asdict(est).items()}}
        return SprtOutcome(code, text, doc)

    def write_verdict(self, out: Path, outcome: SprtOutcome) -> None:
        """Write verdict.json.

        Raises:
            OSError: the folder refused it.
        """
        write_json(out / VERDICT_FILE, outcome.doc)
