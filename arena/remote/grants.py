"""The organiser's word over a bot's manifest.

A manifest (``bot.toml``) is written by the bot's author; under the ``strict`` profile it
must not decide what its bot may see or use. What the organiser grants (the league file's
``[sandbox] allow_env``, ``[limits]`` and the same keys per ``[[entry]]``, or ``mus match
--allow-env``) is a :class:`Grants`; :func:`apply` turns a manifest into the one the arena
runs, or refuses it with one line naming the key and the entry.

Who decides each key under each profile is written down in docs/reliability.md ("Who
decides each manifest key").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from arena.remote.manifest import BotManifest, BotSpec, Limits, ManifestError

LIMIT_KEYS = tuple(f.name for f in dataclasses.fields(Limits))
"""The keys of a ``[limits]`` table, in a manifest and in a league file alike."""
NO_LIMITS = Limits(**{k: 0 for k in LIMIT_KEYS})


class GrantError(ManifestError):
    """A manifest asks for what the organiser did not grant; the message names the key,
    the entry and what to do."""


@dataclass(frozen=True)
class Grants:
    """What the organiser lets one entry's bot have."""

    allow_env: frozenset[str] = frozenset()
    """Variables of the arena's environment the bot may inherit (its ``inherit_env``)
    under ``strict``."""
    ceilings: Limits = NO_LIMITS
    """The most each resource limit may be (0: no ceiling); see :func:`ceilings`."""


def ceilings(profile: str, *tables: Mapping[str, int]) -> Limits:
    """The limit ceilings of one entry: each key from the last of ``tables`` (the league's
    ``[limits]``, then the entry's) that gives it; a key no table gives is capped by the
    arena's default (:class:`Limits`) under ``strict``, and not at all under ``default``
    (a development arena keeps what the manifest asks)."""
    base = Limits() if profile == "strict" else NO_LIMITS
    values = dataclasses.asdict(base)
    for table in tables:
        values.update({k: v for k, v in table.items() if k in values})
    return Limits(**values)


def _cap(asked: int, ceiling: int) -> int:
    """A manifest's limit under a ceiling (0 is "none" on either side)."""
    if ceiling == 0:
        return asked
    return ceiling if asked == 0 else min(asked, ceiling)


def capped(limits: Limits, ceiling: Limits) -> Limits:
    """``limits`` with every field at most its ``ceiling`` (a manifest's ``0``, no limit,
    becomes the ceiling)."""
    return Limits(**{k: _cap(getattr(limits, k), getattr(ceiling, k)) for k in LIMIT_KEYS})


def apply(manifest: BotManifest, profile: str, grants: Grants) -> BotManifest:
    """The manifest the arena runs under ``profile`` (the caller names the entry in errors).

    Under ``strict``, every variable of ``inherit_env`` must be granted: one that is not
    refuses the bot (at load time, before anything runs: an organiser then sees the
    problem at once rather than a bot that fails in a prize league for a missing
    variable). Under either profile the limits are capped by ``grants.ceilings``.

    Raises:
        GrantError: an ``inherit_env`` variable not granted under ``strict``.
    """
    if profile == "strict":
        refused = [name for name in manifest.inherit_env if name not in grants.allow_env]
        if refused:
            where = manifest.source if manifest.source is not None else manifest.name
            raise GrantError(
                f"{where}: field inherit_env: {refused[0]} is not granted; under the strict sandbox a bot inherits "
                "only the variables the organiser grants (league file: [sandbox] allow_env or the entry's allow_env; "
                "mus match: --allow-env): grant it, or remove it from the manifest")
    return dataclasses.replace(manifest, limits=capped(manifest.limits, grants.ceilings))


def ungranted(spec: BotSpec, profile: str) -> BotSpec:
    """``spec`` as a command without grants runs it (``mus check``, ``mus sprt``): under
    ``strict`` no inherited variable, and the arena's defaults as limit ceilings.

    Raises:
        GrantError: the manifest inherits a variable under ``strict``.
    """
    if not isinstance(spec, BotManifest):
        return spec
    return apply(spec, profile, Grants(ceilings=ceilings(profile)))


def env_names(value: object) -> frozenset[str] | None:
    """``value`` as a set of variable names, if it is a list of them; None otherwise."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v.isidentifier() and v.isascii() for v in value):
        return None
    return frozenset(value)


def limits_table(value: object) -> tuple[dict[str, int] | None, str]:
    """A ``[limits]`` table of a league file, checked: (the table, "") or (None, why not)."""
    if not isinstance(value, dict):
        return None, "must be a table"
    for key, v in value.items():
        if key not in LIMIT_KEYS:
            return None, f"unknown key {key!r} (known: {', '.join(LIMIT_KEYS)})"
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            return None, f"{key} must be an integer >= 0 (0 = no limit), not {v!r}"
    return dict(value), ""


def merged(*names: Iterable[str]) -> frozenset[str]:
    """The union of several ``allow_env`` lists."""
    return frozenset(n for group in names for n in group)
