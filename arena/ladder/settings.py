"""A ladder's settings: a league file without entries (``ladder.toml`` in the ladder's folder).

The same keys as a league file (docs/league.md) and the same parser
(:func:`arena.league.config.load_league`, so the same checks and the same messages with
file, line and field): ``[rules]``, ``[time]``, ``[sandbox]``, ``duplicate``, ``jobs``,
``fresh_processes``, ``name``, ``[limits]``. What a ladder decides itself is refused: ``[[entry]]``
(entries are added with ``mus ladder add``), ``matches_per_pairing`` (matchmaking
chooses the pairings), ``[cluster]`` (``mus ladder run --ray`` instead), ``[standings]`` (an anchor
names an entry; a ladder's versions come and go). Two differences:

* the sandbox is **strict** unless the file says ``[sandbox] mode = "default"``: a
  ladder runs code from many authors for weeks;
* ``seed`` is accepted (for tests and demonstrations) with the league's warning; without
  it, the ladder's secret is drawn when it is created.
"""

from __future__ import annotations

import tempfile
import tomllib
from dataclasses import replace
from pathlib import Path

from arena.league.config import Entry, LeagueConfig, LeagueConfigError, load_league
from arena.remote import grants
from arena.remote.manifest import BotManifest, BotSpec

REFUSED = {
    "entry": "a ladder file has no [[entry]]: add entries with mus ladder add",
    "matches_per_pairing": "a ladder has no fixed pairings: matchmaking chooses them (mus ladder run)",
    "cluster": "[cluster] is for league files: a ladder plays on a Ray cluster with mus ladder run --ray ADDRESS",
    "standings": "a ladder's ratings are not anchored ([standings] anchor is for leagues): its versions come and "
                 "go, and its ratings are centred on 1500",
}
_PLACEHOLDERS = '\n\n[[entry]]\nname = "_ladder_a"\nbot = "127.0.0.1:1"\n\n[[entry]]\nname = "_ladder_b"\nbot = "127.0.0.1:1"\n'
"""Appended to the text given to the league parser, which wants two entries: after the
file's last line, so that every line number it reports is the file's."""


def load_settings(path: Path, default_name: str | None = None) -> LeagueConfig:
    """Read and check a ladder file; its entries are empty (a match's two versions are
    put in by :func:`for_match`). Its name: the file's ``name``, else ``default_name``,
    else the file's stem.

    Raises:
        LeagueConfigError: unreadable, not TOML, a refused key, or a bad field (with its line).
    """
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as exc:
        raise LeagueConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise LeagueConfigError(f"{path}: not valid TOML: {exc}") from None
    for key, why in REFUSED.items():
        if key in data:
            raise LeagueConfigError(f"{path}: field {key}: {why}")
    sandbox_table = data.get("sandbox")
    strict = not (isinstance(sandbox_table, dict) and "mode" in sandbox_table)
    with tempfile.TemporaryDirectory(prefix="mus-ladder-") as tmp:
        check = Path(tmp) / path.name
        check.write_text(text + _PLACEHOLDERS, encoding="utf-8")
        try:
            config = load_league(check, sandbox="strict" if strict else None)
        except LeagueConfigError as exc:
            raise LeagueConfigError(str(exc).replace(str(check), str(path))) from None
    name = data.get("name", default_name or path.stem)
    return replace(config, name=str(name), entries=(), source=path)


def granted(config: LeagueConfig, spec: BotSpec) -> BotSpec:
    """``spec`` (a version's manifest) as the ladder lets it run: the settings' ``[sandbox]
    allow_env`` and ``[limits]`` ceilings applied, as a league applies its file's
    (:func:`arena.remote.grants.apply`). The ladder reads its versions' manifests itself,
    after :func:`load_settings`, so the grants are read again from the settings file
    (checked by :func:`load_settings`, unchanged since the ladder's creation).

    Raises:
        GrantError: the manifest inherits a variable the settings do not grant, under strict.
    """
    if not isinstance(spec, BotManifest):
        return spec
    data: dict[str, object] = {}
    if config.source is not None:
        with open(config.source, "rb") as f:
            data = tomllib.load(f)
    table = data.get("sandbox")
    names = grants.env_names(table.get("allow_env", [])) if isinstance(table, dict) else None
    limits, _ = grants.limits_table(data.get("limits", {}))
    ceilings = grants.ceilings(config.sandbox, *([limits] if limits is not None else []))
    return grants.apply(spec, config.sandbox, grants.Grants(names or frozenset(), ceilings))


def for_match(config: LeagueConfig, specs: dict[str, BotSpec]) -> LeagueConfig:
    """The settings with ``specs`` (version id -> its bot) as entries: what
    :meth:`LeagueConfig.seats` needs to seat a match."""
    return replace(config, entries=tuple(Entry(name, spec=spec) for name, spec in specs.items()))


DEFAULT_SETTINGS = """\
# A ladder's settings: the keys of a league file (docs/league.md), without entries.
duplicate = true
# jobs = 2: matches at once (without it, or mus ladder run --jobs: one per CPU the arena may use)

[rules]
target_points = 30
games_to_win = 1

[time]
decision_ms = 2000
time_bank_ms = 60000
max_faults = 5

[sandbox]
mode = "strict"
"""
"""The settings of ``mus ladder create`` without ``--settings``."""
