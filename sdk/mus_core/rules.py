"""The rules configuration: every variant of docs/rules.md as one frozen value (§12)."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any


class JuegoReal(enum.Enum):
    """Which hands count as "31 real" (three 7s and a ten-point card), docs/rules.md §4.4."""

    OFF = "off"
    """No real: every 31 is equal (default)."""
    ANY_TEN_CARD = "any_ten_card"
    """7 7 7 plus S, C, R or (with 8 kings) a 3."""
    FIGURE_NO_THREE = "figure_no_three"
    """7 7 7 plus S, C or R; never a 3."""
    SOTA_ONLY = "sota_only"
    """7 7 7 plus a sota only."""


class SignalMode(enum.Enum):
    """Who sees a seña, docs/rules.md §9.3."""

    PUBLIC = "public"
    """Every other seat sees every seña (default)."""
    OFF = "off"
    """Silent mus: señas are forbidden."""
    PARTNER_WITH_INTERCEPTION = "partner_with_interception"
    """Partners always see it; each opponent with probability ``interception_p``."""


class MusCorrido(enum.Enum):
    """The ``mus_corrido`` variant, docs/rules.md §3.6."""

    OFF = "off"
    FIRST_HAND_OF_MATCH = "first_hand_of_match"
    FIRST_HAND_OF_EACH_GAME = "first_hand_of_each_game"


@dataclass(frozen=True, slots=True)
class Rules:
    """A rules variant. The defaults are those of docs/rules.md §12.

    Build one with keyword arguments, or from a plain mapping (a TOML table) with
    :meth:`from_mapping`, which names the offending field on error.
    """

    players: int = 4
    """Seats at the table: 4 (two teams of two), 2 (1 v 1) or 6 (3 v 3)."""
    kings: int = 8
    """8: every 3 is a king and every 2 an ace; 4: 3 and 2 keep their rank."""
    target_points: int = 40
    """Stones (piedras) that win a game."""
    games_to_win: int = 2
    """Games that win a vaca (2 = best of 3)."""
    vacas_to_win: int = 1
    """Vacas that win the match (optional outer level)."""
    juego_real: JuegoReal = JuegoReal.OFF
    signals: SignalMode = SignalMode.PUBLIC
    interception_p: float = 0.0
    """Probability that an opponent sees a seña, with ``PARTNER_WITH_INTERCEPTION``."""
    signal_timing_rules: bool = True
    """FEM timing: ``medias`` only after the grande lance is over."""
    mus_corrido: MusCorrido = MusCorrido.OFF
    plural_answers_bind_partner: bool = False
    """Allow "queremos" / "no queremos", which answer for the whole team (§6.5)."""
    max_stake: int | None = None
    """Cap on a lance's stake; ``None`` means no cap (no rule source sets one)."""
    max_mus_rounds: int | None = None
    """Discard rounds after which "no hay mus" is automatic; ``None`` = unlimited."""

    def __post_init__(self) -> None:
        def bad(field: str, why: str) -> ValueError:
            return ValueError(f"rules.{field}: {why}")

        if self.players not in (2, 4, 6):
            raise bad("players", f"must be 2, 4 or 6, not {self.players!r}")
        if self.kings not in (4, 8):
            raise bad("kings", f"must be 8 or 4, not {self.kings!r}")
        for name in ("target_points", "games_to_win", "vacas_to_win"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise bad(name, f"must be a positive integer, not {value!r}")
        if not 0.0 <= self.interception_p <= 1.0:
            raise bad("interception_p", f"must be within [0, 1], not {self.interception_p!r}")
        if self.max_stake is not None and (
            not isinstance(self.max_stake, int) or self.max_stake < 2
        ):
            raise bad("max_stake", f"must be an integer >= 2 or null, not {self.max_stake!r}")
        if self.max_mus_rounds is not None and (
            not isinstance(self.max_mus_rounds, int) or self.max_mus_rounds < 0
        ):
            raise bad(
                "max_mus_rounds", f"must be an integer >= 0 or null, not {self.max_mus_rounds!r}"
            )

    @property
    def signals_enabled(self) -> bool:
        """Whether señas may be given at all (never at a 2-player table, §10)."""
        return self.signals is not SignalMode.OFF and self.players != 2

    def to_mapping(self) -> dict[str, Any]:
        """The rules as plain JSON/TOML values; :meth:`from_mapping` inverts it."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.value if isinstance(value, enum.Enum) else value
        if self.signals is SignalMode.PARTNER_WITH_INTERCEPTION:
            out["signals"] = f"partner_with_interception({self.interception_p})"
        del out["interception_p"]
        return out

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> Rules:
        """Build rules from plain values, as written in a scenario or league file.

        ``signals`` accepts ``"public"``, ``"off"`` or ``"partner_with_interception(p)"``;
        ``juego_real`` and ``mus_corrido`` accept ``false``/``"off"`` for off.

        Raises:
            ValueError: an unknown field or a bad value; the message names the field.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known or key == "interception_p":
                raise ValueError(f"rules.{key}: unknown rule (known: {', '.join(sorted(known - {'interception_p'}))})")
            if key == "juego_real":
                kwargs[key] = _enum(JuegoReal, key, "off" if value is False else value)
            elif key == "mus_corrido":
                kwargs[key] = _enum(MusCorrido, key, "off" if value is False else value)
            elif key == "signals":
                text = str(value).replace(" ", "")
                if text.startswith("partner_with_interception"):
                    inner = text[len("partner_with_interception") :].strip("()") or "0"
                    try:
                        kwargs["interception_p"] = float(inner)
                    except ValueError:
                        raise ValueError(f"rules.signals: bad probability in {value!r}") from None
                    kwargs[key] = SignalMode.PARTNER_WITH_INTERCEPTION
                else:
                    kwargs[key] = _enum(SignalMode, key, text)
            elif key in ("signal_timing_rules", "plural_answers_bind_partner"):
                if not isinstance(value, bool):
                    raise ValueError(f"rules.{key}: must be true or false, not {value!r}")
                kwargs[key] = value
            else:
                if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                    raise ValueError(f"rules.{key}: must be an integer, not {value!r}")
                kwargs[key] = value
        return cls(**kwargs)


def _enum(kind: type[enum.Enum], field: str, value: Any) -> Any:
    try:
        return kind(value)
    except ValueError:
        choices = " | ".join(str(m.value) for m in kind)
        raise ValueError(f"rules.{field}: {value!r} is not one of {choices}") from None
