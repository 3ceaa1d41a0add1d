"""League files (TOML): the entries, the rules, the schedule and the time control.

::

    name = "demo"
    seed = 7                     # optional; without it each run draws a 128-bit secret
    matches_per_pairing = 4      # per pair of entries; seats are swapped between matches
    duplicate = true             # every deal seed played twice, teams exchanging seats
    jobs = 1                     # default: the CPUs the arena may use (docs/league.md)
    fresh_processes = false      # true: a new process per seat and match (default: kept)

    [rules]                      # docs/rules.md §12 keys (defaults otherwise)
    target_points = 30

    [time]
    decision_ms = 2000
    time_bank_ms = 120000
    max_faults = 5

    [sandbox]
    mode = "default"             # or "strict": see arena/remote/sandbox.py
    allow_env = ["CUDA_HOME"]    # variables any entry's manifest may inherit under strict

    [limits]                     # ceilings of every bot process's limits (0 = none);
    memory_mb = 4096             # under strict, the arena's defaults where not given

    [standings]                  # optional: the rating scale pinned to an entry
    anchor = "rulebot"
    anchor_rating = 1000         # default 1500

    [cluster]                    # optional: run the matches on a Ray cluster (docs/cluster.md)
    address = "auto"             # "local", "auto", "host:port" or "ray://host:port"

    [[entry]]
    name = "rulebot"
    bot = "bots/rulebot"         # a manifest, a directory with bot.toml, or host:port
    allow_env = ["MY_VAR"]       # optional: more variables this entry's bot may inherit
    limits = { memory_mb = 8192 } # optional: this entry's own ceilings (over [limits])

    [[entry]]
    name = "mixed"
    pair = ["rulebot", "random"] # an explicit mixed team of two other entries

With ``players = 2`` in ``[rules]`` each entry takes one seat (a pair is refused); with
6, each entry fills three seats, a pair as ``a, b, a`` (:meth:`LeagueConfig.seats`).

Errors name the file, the line and the field. ``bot_cpus`` and ``spin_us``, which earlier
league files carry, are accepted with a deprecation warning (:func:`load_league`).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mus_core import Rules
from mus_core.state import SEED_LIMIT

from arena.common.deprecation import deprecated
from arena.league.config_tables import ClusterConfig as ClusterConfig
from arena.league.config_tables import FileFields, cluster_table, granted, standings_table
from arena.league.config_tables import LeagueConfigError as LeagueConfigError
from arena.league.config_tables import check_cluster_address as check_cluster_address
from arena.remote.manifest import BotManifest, BotSpec, ManifestError, parse_bot_spec
from arena.remote.readable import readability_problem
from arena.remote.sandbox import PROFILES, STRICT, check_profile
from arena.runtime.settings import (
    DEFAULT_POLL_US,
    IGNORED_PLACEMENT,
    MAX_POLL_US,
    Runtime,
    legacy_spin_us_instead,
)

_SEED_TEXT = re.compile(r"0[xX][0-9a-fA-F]+|[0-9]+")


def parse_seed(value: object) -> int:
    """A seed given by the user (``--seed`` of ``mus match`` and ``mus league``, ``seed =``
    of a league file): one rule everywhere. A non-negative integer below 2**256, as an
    integer or as text in decimal or ``0x`` hexadecimal (TOML integers stop at 2**63, so
    a drawn 128-bit secret is written ``seed = "0x…"``).

    Raises:
        ValueError: anything else (a sign, a fraction, text that is not a number, a
            value of 2**256 or more), with a message saying what a seed is.
    """
    seed: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        seed = value
    elif isinstance(value, str) and _SEED_TEXT.fullmatch(value):
        seed = int(value, 0) if value[:2].lower() == "0x" else int(value, 10)
    if seed is None or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"a seed is a non-negative integer below 2**256, in decimal or 0x-hex, not {value!r}")
    return seed


@dataclass(frozen=True)
class Entry:
    """One competitor: a bot (a team is two instances of it) or a mixed pair of bots."""

    name: str
    spec: BotSpec | None = None
    pair: tuple[str, str] | None = None


@dataclass(frozen=True)
class LeagueConfig:
    """A parsed league file."""

    name: str
    entries: tuple[Entry, ...]
    rules: Rules = field(default_factory=Rules)
    seed: int | None = None
    """The seed the user gave (reproducible, and guessable); None: each run draws a secret."""
    matches_per_pairing: int = 2
    duplicate: bool = False
    decision_ms: int = 2000
    time_bank_ms: int = 120_000
    max_faults: int = 5
    jobs: int | None = None
    """Matches in parallel; None: as many as this machine holds (:mod:`arena.runtime.cpus`)."""
    runtime: Runtime = field(default_factory=Runtime)
    """How the matches are run for speed (:mod:`arena.runtime.settings`)."""
    sandbox: str = "default"
    """The isolation profile of the bot processes (:mod:`arena.remote.sandbox`)."""
    fresh_processes: bool = False
    """Start every seat's process for its match and stop it after, for every entry
    (default: each job keeps processes across matches, :mod:`arena.runner.pool`)."""
    cluster: ClusterConfig | None = None
    """Run the matches on a Ray cluster (:mod:`arena.league.cluster`); None: on this machine."""
    anchor: str | None = None
    """``[standings] anchor``: the entry whose rating is pinned to :attr:`anchor_rating`
    (so that leagues anchored to the same bot compare); None: ratings centred on 1500."""
    anchor_rating: float = 1500.0
    source: Path | None = None

    def bot_specs(self, entry_name: str) -> tuple[BotSpec, BotSpec]:
        """The two bots (seat order within the team) of an entry."""
        entry = self.entry(entry_name)
        if entry.pair is not None:
            a, b = (self.entry(n).spec for n in entry.pair)
            assert a is not None and b is not None
            return a, b
        assert entry.spec is not None
        return entry.spec, entry.spec

    def seats(self, team0: str, team1: str) -> tuple[tuple[BotSpec, ...], tuple[str, ...]]:
        """The bot of each seat, and the entry of each seat, for a match of ``team0`` (even
        seats) against ``team1`` (odd seats) at this league's table (``rules.players``).

        Each entry fills its team's seats in turn order with its bots (docs/league.md,
        "Tables of 2 and 6"): 2 players, its one bot; 4, its two (a ``pair`` in its
        order); 6, three seats: a plain entry three instances of its bot, a ``pair``
        ``[a, b]`` plays ``a, b, a`` (its first member twice). A pair cannot sit at a
        2-player table: :func:`load_league` refuses it.
        """
        n = self.rules.players
        teams = (self.bot_specs(team0), self.bot_specs(team1))
        specs = tuple(teams[s & 1][(s // 2) % 2] for s in range(n))
        names = tuple((team0, team1)[s & 1] for s in range(n))
        return specs, names

    def entry(self, name: str) -> Entry:
        """The entry called ``name``."""
        for e in self.entries:
            if e.name == name:
                return e
        raise KeyError(name)

    def members(self, entry_name: str) -> tuple[str, str]:
        """Names of the bot entries playing in a team (the same twice for a plain entry)."""
        entry = self.entry(entry_name)
        return entry.pair if entry.pair is not None else (entry.name, entry.name)


def load_league(path: Path, *, poll_us: int | None = None, sandbox: str | None = None) -> LeagueConfig:
    """Read and validate a league file.

    ``poll_us`` (the deprecated ``--spin-us``) replaces the file's ``spin_us``, which
    otherwise sets the polling window; the file's ``bot_cpus`` is ignored (the system
    places the bots); each of these keys logs one deprecation warning. ``sandbox``
    replaces the file's ``[sandbox] mode`` (``--sandbox``).

    Raises:
        LeagueConfigError: unreadable, invalid TOML, or a bad field (with its line).
    """
    fields, data = _read(path)
    for key in data:
        if key not in _TOP_KEYS and key not in ("bot_cpus", "spin_us"):  # retired (REMOVED_IN): read in _runtime
            raise fields.err(key, f"unknown key (known: {', '.join(sorted(_TOP_KEYS))})")
    rules = _rules(data, fields)
    time_cfg = _table(data, "time", ("decision_ms", "time_bank_ms", "max_faults"), fields, "must be a table")
    sandbox_cfg = _table(data, "sandbox", ("mode", "allow_env"), fields, "must be a table ([sandbox] with mode)")
    profile = _profile(sandbox_cfg, sandbox, fields)
    seed: int | None = None
    if "seed" in data:
        try:
            seed = parse_seed(data["seed"])
        except ValueError as exc:
            raise fields.err("seed", str(exc)) from None
    entries = _entries(data, sandbox_cfg, profile, fields)
    _check_pairs(entries, rules, fields)
    duplicate = _boolean(data, "duplicate", fields)
    runtime = _runtime(data, poll_us, fields)
    fresh = _boolean(data, "fresh_processes", fields)
    cluster = cluster_table(data, fields)
    anchor, anchor_rating = standings_table(data, [e.name for e in entries], fields)
    matches = fields.integer(data, "matches_per_pairing", 2, 1)
    if duplicate and matches % 2:
        raise fields.err("matches_per_pairing",
                         f"must be even with duplicate = true (each deal is played twice), not {matches}")
    return LeagueConfig(
        name=str(data.get("name", path.stem)),
        entries=tuple(entries),
        rules=rules,
        seed=seed,
        matches_per_pairing=matches,
        duplicate=duplicate,
        decision_ms=fields.integer(time_cfg, "decision_ms", 2000, 1, "time."),
        time_bank_ms=fields.integer(time_cfg, "time_bank_ms", 120_000, 1, "time."),
        max_faults=fields.integer(time_cfg, "max_faults", 5, 0, "time."),
        jobs=fields.integer(data, "jobs", 1, 1) if "jobs" in data else None,
        runtime=runtime,
        sandbox=profile,
        fresh_processes=fresh,
        cluster=cluster,
        anchor=anchor,
        anchor_rating=anchor_rating,
        source=path,
    )


_TOP_KEYS = frozenset({"name", "seed", "matches_per_pairing", "duplicate", "jobs", "rules", "time", "sandbox",
                       "fresh_processes", "entry", "cluster", "limits", "standings"})
"""The keys a league file may have at its top level (besides the deprecated ones)."""


def _read(path: Path) -> tuple[FileFields, dict[str, Any]]:
    """The file's text (for the lines of errors) and its TOML."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LeagueConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LeagueConfigError(f"{path}: not valid TOML: {exc}") from None
    return FileFields(path, text), data


def _table(data: dict[str, Any], name: str, known: tuple[str, ...], fields: FileFields, not_table: str
           ) -> dict[str, Any]:
    """The table ``name`` (empty when absent), with only ``known`` keys."""
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise fields.err(name, not_table, name)
    for key in table:
        if key not in known:
            raise fields.err(f"{name}.{key}", f"unknown key (known: {', '.join(known)})", key)
    return table


def _boolean(data: dict[str, Any], key: str, fields: FileFields) -> bool:
    """``data[key]``, true or false (false when absent)."""
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise fields.err(key, f"must be true or false, not {value!r}")
    return value


def _rules(data: dict[str, Any], fields: FileFields) -> Rules:
    """``[rules]``, checked by the engine; its error names the rule's line."""
    if not isinstance(data.get("rules", {}), dict):
        raise fields.err("rules", "must be a table ([rules])", "rules")
    try:
        return Rules.from_mapping(dict(data.get("rules", {})))
    except ValueError as exc:
        fld = str(exc).split(":")[0]
        raise fields.err(fld, str(exc).split(": ", 1)[-1], fld.split(".")[-1]) from None


def _profile(sandbox_cfg: dict[str, Any], given: str | None, fields: FileFields) -> str:
    """The sandbox profile: ``given`` (``--sandbox``) if any, else ``[sandbox] mode``
    (default ``default``); both are checked."""
    file_sandbox = sandbox_cfg.get("mode", "default")
    if not isinstance(file_sandbox, str) or file_sandbox not in PROFILES:
        raise fields.err("sandbox.mode", f"must be one of {', '.join(PROFILES)}, not {file_sandbox!r}", "mode")
    if given is None:
        return file_sandbox
    try:
        check_profile(given)
    except ValueError as exc:
        raise LeagueConfigError(f"sandbox: {exc}") from None
    return given


def _entries(data: dict[str, Any], sandbox_cfg: dict[str, Any], profile: str, fields: FileFields) -> list[Entry]:
    """The ``[[entry]]`` tables: at least two, unique names, each a bot (granted what
    the league grants it) or a ``pair`` (checked by :func:`_check_pairs`)."""
    raw_entries = data.get("entry")
    if not isinstance(raw_entries, list) or len(raw_entries) < 2:
        raise fields.err("entry", "a league needs at least two [[entry]] tables", "[[entry]]")
    entries: list[Entry] = []
    names: set[str] = set()
    for i, raw in enumerate(raw_entries):
        fld = f"entry[{i}]"
        if not isinstance(raw, dict):
            raise fields.err(fld, "each entry must be a table ([[entry]] with name and bot)", "entry")
        name = raw.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+", name or ""):
            raise fields.err(f"{fld}.name", f"must be a name of letters, digits, _ . - (got {name!r})", "name")
        if name in names:
            raise fields.err(f"{fld}.name", f"duplicate entry name {name!r}", "name")
        names.add(name)
        unknown = set(raw) - {"name", "bot", "pair", "allow_env", "limits"}
        if unknown:
            raise fields.err(f"{fld}.{sorted(unknown)[0]}", "unknown key (known: name, bot, pair, allow_env, limits)",
                             sorted(unknown)[0])
        if "pair" in raw:
            pair = raw["pair"]
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
                raise fields.err(f"{fld}.pair", "must be two entry names", "pair")
            entries.append(Entry(name, pair=(pair[0], pair[1])))
        else:
            entries.append(Entry(name, spec=_entry_bot(raw, i, name, data, sandbox_cfg, profile, fields)))
    return entries


def _entry_bot(raw: dict[str, Any], i: int, name: str, data: dict[str, Any], sandbox_cfg: dict[str, Any],
               profile: str, fields: FileFields) -> BotSpec:
    """Entry ``i``'s bot (its ``bot`` relative to the file's folder), as the league lets
    it run; under strict (and on this machine) its folder must be readable by the bots' user."""
    fld = f"entry[{i}]"
    bot = raw.get("bot")
    if not isinstance(bot, str):
        raise fields.err(f"{fld}.bot", "must be a bot manifest path, a directory with bot.toml, or host:port", "bot")
    try:
        spec = granted(parse_bot_spec(bot, fields.path.parent), raw, i, profile, sandbox_cfg, data, fields)
    except ManifestError as exc:
        raise fields.err(f"{fld}.bot", f"entry {name!r}: {exc}", "bot") from None
    if profile == STRICT and isinstance(spec, BotManifest) and "cluster" not in data:
        unreadable = readability_problem(spec.workdir)
        if unreadable is not None:
            raise fields.err(f"{fld}.bot", f"entry {name!r}: {unreadable}", "bot")
    return spec


def _check_pairs(entries: list[Entry], rules: Rules, fields: FileFields) -> None:
    """Every ``pair`` names two bot entries of the league, at a table of 4 or 6."""
    for i, e in enumerate(entries):
        if e.pair is not None and rules.players == 2:
            raise fields.err(f"entry[{i}].pair", f"a 2-player table ([rules] players = 2) seats one bot per team: "
                             f"the pair {e.name!r} cannot play; make it a bot entry, or play 4 or 6", "pair")
        if e.pair is not None:
            for member in e.pair:
                target = next((x for x in entries if x.name == member), None)
                if target is None or target.spec is None:
                    raise fields.err(f"entry {e.name}.pair", f"{member!r} is not a bot entry of this league", "pair")


def _runtime(data: dict[str, Any], poll_us: int | None, fields: FileFields) -> Runtime:
    """The runtime from the file's former keys (deprecated, still read, never refused:
    docs/league.md) and the command line's ``poll_us``, which wins."""
    # retired (REMOVED_IN): bot_cpus and spin_us; then the runtime is Runtime() or the poll_us given.
    if "bot_cpus" in data:
        deprecated("bot_cpus", str(fields.path), IGNORED_PLACEMENT)
    file_poll = fields.integer(data, "spin_us", DEFAULT_POLL_US, 0)
    if file_poll > MAX_POLL_US:
        raise fields.err("spin_us", f"must be at most {MAX_POLL_US} (µs), not {file_poll}")
    if "spin_us" in data:
        deprecated("spin_us", str(fields.path), legacy_spin_us_instead(file_poll if poll_us is None else poll_us))
    try:
        return Runtime(poll_us=file_poll if poll_us is None else poll_us)
    except ValueError as exc:
        raise LeagueConfigError(str(exc)) from None
