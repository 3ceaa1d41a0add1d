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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import SEED_LIMIT, Rules
from arena.remote import grants
from arena.remote.manifest import BotManifest, BotSpec, ManifestError, parse_bot_spec
from arena.remote.readable import readability_problem
from arena.remote.sandbox import PROFILES, STRICT, check_profile
from arena.runtime import (
    DEFAULT_POLL_US,
    IGNORED_PLACEMENT,
    MAX_POLL_US,
    Runtime,
    deprecated,
    legacy_spin_us_instead,
)


class LeagueConfigError(ValueError):
    """A league file that cannot be used; the message has file, line and field."""


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
class ClusterConfig:
    """The ``[cluster]`` table (or ``mus league --ray``): where the matches run on Ray and
    what each reserves there (docs/cluster.md)."""

    address: str = "local"
    """``local``: attach to the Ray instance of this machine, or start one; ``auto``: the
    cluster this machine is a node of; ``host:port`` (a head's GCS) or ``ray://host:port``
    (Ray Client)."""
    cpus_per_bot: float = 1.0
    """CPUs a match reserves for each bot process (fractions allowed)."""
    cpus_per_referee: float = 1.0
    """CPUs a match reserves for its referee."""
    max_retries: int = 3
    """Times Ray plays a match again elsewhere after the node (or worker process) playing
    it died; a bot's faults are never retried."""
    max_bot_mb: int = 100
    """Largest bot folder shipped to the workers, in MiB (its files, uncompressed)."""
    ship_code: bool = True
    """Ship the arena's and the SDK's code with the league (Ray's ``py_modules``), so the
    workers run exactly the driver's version; False: the workers' installed one."""

    def cpus_per_match(self, players: int) -> float:
        """What one match reserves: a CPU share per bot process and one for its referee."""
        return players * self.cpus_per_bot + self.cpus_per_referee

    def to_json(self) -> dict[str, Any]:
        """As league.json records it (not part of the league's identity: a league started
        locally may be resumed on a cluster, and the other way round)."""
        return {"address": self.address, "cpus_per_bot": self.cpus_per_bot, "cpus_per_referee": self.cpus_per_referee,
                "max_retries": self.max_retries, "max_bot_mb": self.max_bot_mb, "ship_code": self.ship_code}


_CLUSTER_ADDRESS = re.compile(r"^(local|auto|ray://[A-Za-z0-9_.\-\[\]:]+:\d{1,5}|[A-Za-z0-9_.\-\[\]:]+:\d{1,5})$")


def check_cluster_address(address: str) -> str:
    """``address`` if it is one ``[cluster] address`` and ``--ray`` accept.

    Raises:
        ValueError: anything else, saying what is accepted.
    """
    if not _CLUSTER_ADDRESS.match(address):
        raise ValueError(f"a Ray address is local, auto, host:port or ray://host:port, not {address!r}")
    return address


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
    """Matches in parallel; None: as many as this machine holds (:mod:`arena.league.cores`)."""
    runtime: Runtime = field(default_factory=Runtime)
    """How the matches are run for speed (:mod:`arena.runtime`)."""
    sandbox: str = "default"
    """The isolation profile of the bot processes (:mod:`arena.remote.sandbox`)."""
    fresh_processes: bool = False
    """Start every seat's process for its match and stop it after, for every entry
    (default: each job keeps processes across matches, :mod:`arena.league.pool`)."""
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


def _line_of(text: str, needle: str, entry: int | None = None) -> int | None:
    """Line of ``needle = …`` (or of a ``needle`` header line); with ``entry``, searched
    inside the ``entry``-th ``[[entry]]`` table (its header line if the key is absent)."""
    lines = text.splitlines()
    start, stop = 0, len(lines)
    if entry is not None:
        headers = [i for i, line in enumerate(lines) if line.strip() == "[[entry]]"]
        if entry < len(headers):
            start = headers[entry]
            stop = next((i for i in range(start + 1, len(lines)) if lines[i].strip().startswith("[")), len(lines))
    for i in range(start, stop):
        line = lines[i]
        if re.match(rf"\s*{re.escape(needle)}\s*=", line) or line.strip() == needle:
            return i + 1
    return start + 1 if entry is not None and start < len(lines) else None


def load_league(path: Path, *, poll_us: int | None = None, sandbox: str | None = None) -> LeagueConfig:
    """Read and validate a league file.

    ``poll_us`` (the deprecated ``--spin-us``) replaces the file's ``spin_us``, which
    otherwise sets the polling window; the file's ``bot_cpus`` is ignored (the system
    places the bots); each of these keys logs one deprecation warning. ``sandbox``
    replaces the file's ``[sandbox] mode`` (``--sandbox``).

    Raises:
        LeagueConfigError: unreadable, invalid TOML, or a bad field (with its line).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LeagueConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LeagueConfigError(f"{path}: not valid TOML: {exc}") from None

    def err(fld: str, msg: str, key: str | None = None) -> LeagueConfigError:
        m = re.match(r"entry\[(\d+)\]", fld)
        line = _line_of(text, key or fld.split(".")[-1].split("[")[0], int(m.group(1)) if m else None)
        where = f"{path}:{line}" if line else str(path)
        return LeagueConfigError(f"{where}: field {fld}: {msg}")

    allowed = {"name", "seed", "matches_per_pairing", "duplicate", "jobs", "rules", "time", "sandbox",
               "fresh_processes", "entry", "cluster", "limits", "standings"}
    for key in data:
        if key not in allowed and key not in ("bot_cpus", "spin_us"):  # those two: deprecated, read below
            raise err(key, f"unknown key (known: {', '.join(sorted(allowed))})")

    def integer(d: dict[str, Any], key: str, default: int, lo: int, prefix: str = "") -> int:
        v = d.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or v < lo:
            raise err(prefix + key, f"must be an integer >= {lo}, not {v!r}", key)
        return v

    if not isinstance(data.get("rules", {}), dict):
        raise err("rules", "must be a table ([rules])", "rules")
    try:
        rules = Rules.from_mapping(dict(data.get("rules", {})))
    except ValueError as exc:
        fld = str(exc).split(":")[0]
        raise err(fld, str(exc).split(": ", 1)[-1], fld.split(".")[-1]) from None
    time_cfg = data.get("time", {})
    if not isinstance(time_cfg, dict):
        raise err("time", "must be a table")
    for key in time_cfg:
        if key not in ("decision_ms", "time_bank_ms", "max_faults"):
            raise err(f"time.{key}", "unknown key (known: decision_ms, time_bank_ms, max_faults)", key)
    sandbox_cfg = data.get("sandbox", {})
    if not isinstance(sandbox_cfg, dict):
        raise err("sandbox", "must be a table ([sandbox] with mode)", "sandbox")
    for key in sandbox_cfg:
        if key not in ("mode", "allow_env"):
            raise err(f"sandbox.{key}", "unknown key (known: mode, allow_env)", key)
    file_sandbox = sandbox_cfg.get("mode", "default")
    if not isinstance(file_sandbox, str) or file_sandbox not in PROFILES:
        raise err("sandbox.mode", f"must be one of {', '.join(PROFILES)}, not {file_sandbox!r}", "mode")
    if sandbox is not None:
        try:
            check_profile(sandbox)
        except ValueError as exc:
            raise LeagueConfigError(f"sandbox: {exc}") from None
    seed: int | None = None
    if "seed" in data:
        try:
            seed = parse_seed(data["seed"])
        except ValueError as exc:
            raise err("seed", str(exc)) from None
    raw_entries = data.get("entry")
    if not isinstance(raw_entries, list) or len(raw_entries) < 2:
        raise err("entry", "a league needs at least two [[entry]] tables", "[[entry]]")
    base = path.parent
    entries: list[Entry] = []
    names: set[str] = set()
    for i, raw in enumerate(raw_entries):
        fld = f"entry[{i}]"
        if not isinstance(raw, dict):
            raise err(fld, "each entry must be a table ([[entry]] with name and bot)", "entry")
        name = raw.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+", name or ""):
            raise err(f"{fld}.name", f"must be a name of letters, digits, _ . - (got {name!r})", "name")
        if name in names:
            raise err(f"{fld}.name", f"duplicate entry name {name!r}", "name")
        names.add(name)
        unknown = set(raw) - {"name", "bot", "pair", "allow_env", "limits"}
        if unknown:
            raise err(f"{fld}.{sorted(unknown)[0]}", "unknown key (known: name, bot, pair, allow_env, limits)",
                      sorted(unknown)[0])
        if "pair" in raw:
            pair = raw["pair"]
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
                raise err(f"{fld}.pair", "must be two entry names", "pair")
            entries.append(Entry(name, pair=(pair[0], pair[1])))
            continue
        bot = raw.get("bot")
        if not isinstance(bot, str):
            raise err(f"{fld}.bot", "must be a bot manifest path, a directory with bot.toml, or host:port", "bot")
        try:
            spec = _granted(parse_bot_spec(bot, base), raw, i, sandbox or file_sandbox, sandbox_cfg, data, err)
        except ManifestError as exc:
            raise err(f"{fld}.bot", f"entry {name!r}: {exc}", "bot") from None
        if (sandbox or file_sandbox) == STRICT and isinstance(spec, BotManifest) and "cluster" not in data:
            unreadable = readability_problem(spec.workdir)
            if unreadable is not None:
                raise err(f"{fld}.bot", f"entry {name!r}: {unreadable}", "bot")
        entries.append(Entry(name, spec=spec))
    for i, e in enumerate(entries):
        if e.pair is not None and rules.players == 2:
            raise err(f"entry[{i}].pair", f"a 2-player table ([rules] players = 2) seats one bot per team: "
                      f"the pair {e.name!r} cannot play; make it a bot entry, or play 4 or 6", "pair")
        if e.pair is not None:
            for member in e.pair:
                target = next((x for x in entries if x.name == member), None)
                if target is None or target.spec is None:
                    raise err(f"entry {e.name}.pair", f"{member!r} is not a bot entry of this league", "pair")
    name = data.get("name", path.stem)
    duplicate = data.get("duplicate", False)
    if not isinstance(duplicate, bool):
        raise err("duplicate", f"must be true or false, not {duplicate!r}")
    # The runtime's former keys: deprecated, still read (docs/league.md), never refused.
    if "bot_cpus" in data:
        deprecated("bot_cpus", str(path), IGNORED_PLACEMENT)
    file_poll = integer(data, "spin_us", DEFAULT_POLL_US, 0)
    if file_poll > MAX_POLL_US:
        raise err("spin_us", f"must be at most {MAX_POLL_US} (µs), not {file_poll}")
    if "spin_us" in data:
        deprecated("spin_us", str(path), legacy_spin_us_instead(file_poll if poll_us is None else poll_us))
    try:
        runtime = Runtime(poll_us=file_poll if poll_us is None else poll_us)
    except ValueError as exc:
        raise LeagueConfigError(str(exc)) from None
    fresh = data.get("fresh_processes", False)
    if not isinstance(fresh, bool):
        raise err("fresh_processes", f"must be true or false, not {fresh!r}")
    cluster = _cluster_table(data, err)
    anchor, anchor_rating = _standings_table(data, [e.name for e in entries], err)
    matches = integer(data, "matches_per_pairing", 2, 1)
    if duplicate and matches % 2:
        raise err("matches_per_pairing", f"must be even with duplicate = true (each deal is played twice), not {matches}")
    return LeagueConfig(
        name=str(name),
        entries=tuple(entries),
        rules=rules,
        seed=seed,
        matches_per_pairing=matches,
        duplicate=duplicate,
        decision_ms=integer(time_cfg, "decision_ms", 2000, 1, "time."),
        time_bank_ms=integer(time_cfg, "time_bank_ms", 120_000, 1, "time."),
        max_faults=integer(time_cfg, "max_faults", 5, 0, "time."),
        jobs=integer(data, "jobs", 1, 1) if "jobs" in data else None,
        runtime=runtime,
        sandbox=file_sandbox if sandbox is None else sandbox,
        fresh_processes=fresh,
        cluster=cluster,
        anchor=anchor,
        anchor_rating=anchor_rating,
        source=path,
    )


def _granted(spec: BotSpec, raw: dict[str, Any], i: int, profile: str, sandbox_cfg: dict[str, Any],
             data: dict[str, Any], err: Callable[..., LeagueConfigError]) -> BotSpec:
    """``spec`` as the organiser lets it run (:func:`arena.remote.grants.apply`): the
    league's and the entry's ``allow_env`` and limit ceilings, checked and applied.

    Raises:
        LeagueConfigError: a bad ``allow_env`` or ``limits`` table.
        ManifestError: the manifest asks for what is not granted.
    """
    tables: list[dict[str, int]] = []
    for where, table, key in (("limits", data, "limits"), (f"entry[{i}].limits", raw, "limits")):
        if key in table:
            checked, why = grants.limits_table(table[key])
            if checked is None:
                raise err(where, why, "limits")
            tables.append(checked)
    allowed: list[frozenset[str]] = []
    for where, table in (("sandbox.allow_env", sandbox_cfg), (f"entry[{i}].allow_env", raw)):
        if "allow_env" in table:
            names = grants.env_names(table["allow_env"])
            if names is None:
                raise err(where, "must be a list of environment variable names", "allow_env")
            allowed.append(names)
    if not isinstance(spec, BotManifest):
        return spec
    return grants.apply(spec, profile, grants.Grants(grants.merged(*allowed), grants.ceilings(profile, *tables)))


def _standings_table(data: dict[str, Any], names: list[str],
                     err: Callable[..., LeagueConfigError]) -> tuple[str | None, float]:
    """``[standings]``: ``anchor`` (an entry's name) and ``anchor_rating`` (default 1500)."""
    table = data.get("standings", {})
    if not isinstance(table, dict):
        raise err("standings", "must be a table ([standings] with anchor, anchor_rating)", "standings")
    for key in table:
        if key not in ("anchor", "anchor_rating"):
            raise err(f"standings.{key}", "unknown key (known: anchor, anchor_rating)", key)
    anchor = table.get("anchor")
    if anchor is not None and anchor not in names:
        raise err("standings.anchor", f"must name an entry of this league ({', '.join(names)}), not {anchor!r}",
                  "anchor")
    rating = table.get("anchor_rating", 1500.0)
    if isinstance(rating, bool) or not isinstance(rating, int | float) or not -10_000 <= rating <= 10_000:
        raise err("standings.anchor_rating", f"must be a number between -10000 and 10000, not {rating!r}",
                  "anchor_rating")
    if "anchor_rating" in table and anchor is None:
        raise err("standings.anchor_rating", "needs an anchor (the entry given that rating)", "anchor_rating")
    return anchor, float(rating)


def _cluster_table(data: dict[str, Any], err: Callable[..., LeagueConfigError]) -> ClusterConfig | None:
    """The ``[cluster]`` table, checked; None when the file has none."""
    if "cluster" not in data:
        return None
    raw = data["cluster"]
    if not isinstance(raw, dict):
        raise err("cluster", "must be a table ([cluster])", "cluster")
    known = ("address", "cpus_per_bot", "cpus_per_referee", "max_retries", "max_bot_mb", "ship_code")
    for key in raw:
        if key not in known:
            raise err(f"cluster.{key}", f"unknown key (known: {', '.join(known)})", key)
    out = ClusterConfig()
    address = raw.get("address", out.address)
    if not isinstance(address, str):
        raise err("cluster.address", f"must be a string, not {address!r}", "address")
    try:
        check_cluster_address(address)
    except ValueError as exc:
        raise err("cluster.address", str(exc), "address") from None
    cpus: dict[str, float] = {}
    for key, lo in (("cpus_per_bot", 0.0), ("cpus_per_referee", 0.0)):
        v = raw.get(key, getattr(out, key))
        if isinstance(v, bool) or not isinstance(v, int | float) or v < lo or (key == "cpus_per_bot" and v == 0):
            what = "a number > 0" if key == "cpus_per_bot" else "a number >= 0"
            raise err(f"cluster.{key}", f"must be {what}, not {v!r}", key)
        cpus[key] = float(v)
    ints: dict[str, int] = {}
    for key, lo in (("max_retries", 0), ("max_bot_mb", 1)):
        v = raw.get(key, getattr(out, key))
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise err(f"cluster.{key}", f"must be an integer >= {lo}, not {v!r}", key)
        ints[key] = v
    ship = raw.get("ship_code", out.ship_code)
    if not isinstance(ship, bool):
        raise err("cluster.ship_code", f"must be true or false, not {ship!r}", "ship_code")
    return ClusterConfig(address, cpus["cpus_per_bot"], cpus["cpus_per_referee"], ints["max_retries"],
                         ints["max_bot_mb"], ship)
