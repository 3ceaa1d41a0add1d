"""The tables of a league file, each read and checked on its own: ``[cluster]``,
``[standings]``, and what an entry is granted (``allow_env``, ``[limits]``), with the
error that names the file, the line and the field (:class:`FileFields`).

:func:`arena.league.config.load_league` reads the whole file, step by step, with these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.remote import grants
from arena.remote.manifest import BotManifest, BotSpec


class LeagueConfigError(ValueError):
    """A league file that cannot be used; the message has file, line and field."""


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


class FileFields:
    """One league file's text, to name where a bad field is: :meth:`err` builds the
    error ``<file>:<line>: field <field>: <message>``."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    def err(self, fld: str, msg: str, key: str | None = None) -> LeagueConfigError:
        """The error for field ``fld`` (``entry[2].bot``, ``time.decision_ms``): its line
        is that of ``key`` (default: the field's last name), inside the entry's table
        for an entry's field."""
        m = re.match(r"entry\[(\d+)\]", fld)
        line = _line_of(self.text, key or fld.split(".")[-1].split("[")[0], int(m.group(1)) if m else None)
        where = f"{self.path}:{line}" if line else str(self.path)
        return LeagueConfigError(f"{where}: field {fld}: {msg}")

    def integer(self, d: dict[str, Any], key: str, default: int, lo: int, prefix: str = "") -> int:
        """``d[key]`` (``default`` when absent), an integer of at least ``lo``.

        Raises:
            LeagueConfigError: anything else, the field named ``prefix + key``.
        """
        v = d.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or v < lo:
            raise self.err(prefix + key, f"must be an integer >= {lo}, not {v!r}", key)
        return v


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


def granted(spec: BotSpec, raw: dict[str, Any], i: int, profile: str, sandbox_cfg: dict[str, Any],
            data: dict[str, Any], fields: FileFields) -> BotSpec:
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
                raise fields.err(where, why, "limits")
            tables.append(checked)
    allowed: list[frozenset[str]] = []
    for where, table in (("sandbox.allow_env", sandbox_cfg), (f"entry[{i}].allow_env", raw)):
        if "allow_env" in table:
            names = grants.env_names(table["allow_env"])
            if names is None:
                raise fields.err(where, "must be a list of environment variable names", "allow_env")
            allowed.append(names)
    if not isinstance(spec, BotManifest):
        return spec
    return grants.apply(spec, profile, grants.Grants(grants.merged(*allowed), grants.ceilings(profile, *tables)))


def standings_table(data: dict[str, Any], names: list[str], fields: FileFields) -> tuple[str | None, float]:
    """``[standings]``: ``anchor`` (an entry's name) and ``anchor_rating`` (default 1500)."""
    table = data.get("standings", {})
    if not isinstance(table, dict):
        raise fields.err("standings", "must be a table ([standings] with anchor, anchor_rating)", "standings")
    for key in table:
        if key not in ("anchor", "anchor_rating"):
            raise fields.err(f"standings.{key}", "unknown key (known: anchor, anchor_rating)", key)
    anchor = table.get("anchor")
    if anchor is not None and anchor not in names:
        raise fields.err("standings.anchor", f"must name an entry of this league ({', '.join(names)}), not {anchor!r}",
                  "anchor")
    rating = table.get("anchor_rating", 1500.0)
    if isinstance(rating, bool) or not isinstance(rating, int | float) or not -10_000 <= rating <= 10_000:
        raise fields.err("standings.anchor_rating", f"must be a number between -10000 and 10000, not {rating!r}",
                  "anchor_rating")
    if "anchor_rating" in table and anchor is None:
        raise fields.err("standings.anchor_rating", "needs an anchor (the entry given that rating)", "anchor_rating")
    return anchor, float(rating)


def cluster_table(data: dict[str, Any], fields: FileFields) -> ClusterConfig | None:
    """The ``[cluster]`` table, checked; None when the file has none."""
    if "cluster" not in data:
        return None
    raw = data["cluster"]
    if not isinstance(raw, dict):
        raise fields.err("cluster", "must be a table ([cluster])", "cluster")
    known = ("address", "cpus_per_bot", "cpus_per_referee", "max_retries", "max_bot_mb", "ship_code")
    for key in raw:
        if key not in known:
            raise fields.err(f"cluster.{key}", f"unknown key (known: {', '.join(known)})", key)
    out = ClusterConfig()
    address = raw.get("address", out.address)
    if not isinstance(address, str):
        raise fields.err("cluster.address", f"must be a string, not {address!r}", "address")
    try:
        check_cluster_address(address)
    except ValueError as exc:
        raise fields.err("cluster.address", str(exc), "address") from None
    cpus: dict[str, float] = {}
    for key, lo in (("cpus_per_bot", 0.0), ("cpus_per_referee", 0.0)):
        v = raw.get(key, getattr(out, key))
        if isinstance(v, bool) or not isinstance(v, int | float) or v < lo or (key == "cpus_per_bot" and v == 0):
            what = "a number > 0" if key == "cpus_per_bot" else "a number >= 0"
            raise fields.err(f"cluster.{key}", f"must be {what}, not {v!r}", key)
        cpus[key] = float(v)
    ints: dict[str, int] = {}
    for key, lo in (("max_retries", 0), ("max_bot_mb", 1)):
        v = raw.get(key, getattr(out, key))
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise fields.err(f"cluster.{key}", f"must be an integer >= {lo}, not {v!r}", key)
        ints[key] = v
    ship = raw.get("ship_code", out.ship_code)
    if not isinstance(ship, bool):
        raise fields.err("cluster.ship_code", f"must be true or false, not {ship!r}", "ship_code")
    return ClusterConfig(address, cpus["cpus_per_bot"], cpus["cpus_per_referee"], ints["max_retries"],
                         ints["max_bot_mb"], ship)
