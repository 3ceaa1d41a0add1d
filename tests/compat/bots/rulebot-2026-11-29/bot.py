"""rulebot: a rule-based Mus bot with sensible, explainable play.

* Mus: cuts the mus ("no hay mus") with a hand that is already good (31, duples or
  medias, or strong grande plus pares); otherwise asks for mus.
* Discards: keeps kings and aces, pairs, and ten-point cards when they build toward
  juego; throws the middle cards (4-7) first.
* Betting: estimates its strength per lance with :func:`mus_sdk.evaluate.strength`
  (among the hands that can bet for pares/juego), adds a bonus for position (ties go to
  mano) and for what the partner declared, then opens, raises, accepts or declines by
  thresholds that rise with the stake.
* Órdago: only with a near-certain hand (e.g. 31 from mano, duples of kings), or to
  accept one when the hand is very strong or the opponents are about to win anyway.

The logic lives in :class:`RuleBot`, importable without starting a server, so the arena
can run it in-process.
"""

from __future__ import annotations

from mus_sdk import (
    Action,
    ActionKind,
    Bot,
    EventKind,
    Lance,
    Observation,
    Phase,
    discard,
    no_mus,
    no_quiero,
    ordago,
    paso,
    quiero,
    serve,
)
from mus_sdk import evaluate as ev

# Effective ranks (with 8 kings a 3 is a rey and a 2 an as; mus_sdk.evaluate's indices).
_AS, _REY = 0, 9


class RuleBot(Bot):
    """Heuristic player: strength thresholds per lance, adjusted for position and stake."""

    name = "rulebot"
    version = "1.0"
    author = "mus-arena"

    # ------------------------------------------------------------------ entry point
    def decide(self, obs: Observation) -> Action:
        if obs.phase is Phase.MUS:
            return self._mus(obs)
        if obs.phase is Phase.DISCARD:
            return self._discard(obs)
        return self._bet(obs)

    # ------------------------------------------------------------------ mus
    def _mus(self, obs: Observation) -> Action:
        kings = obs.rules.kings
        v = ev.evaluate(obs.cards, kings)
        grande = ev.strength(obs.cards, Lance.GRANDE, kings)
        good = (
            v.total == 31
            or v.pares is ev.Pares.DUPLES
            or v.pares is ev.Pares.MEDIAS
            or (v.has_pares and grande > 0.85)
            or (v.has_juego and v.has_pares)
        )
        if good and obs.legal.can(ActionKind.NO_MUS):
            return no_mus()
        return _kind(obs, ActionKind.MUS)

    # ------------------------------------------------------------------ discard
    def _discard(self, obs: Observation) -> Action:
        rng = obs.legal.discard_range
        if rng is None:  # cannot happen in a DISCARD phase; be safe
            return obs.legal.concrete()[0]
        kings = obs.rules.kings
        cards = list(rng.cards)
        eff = {c: _effective(c, kings) for c in cards}
        counts: dict[int, int] = {}
        for c in cards:
            counts[eff[c]] = counts.get(eff[c], 0) + 1
        tens = [c for c in cards if eff[c] >= 7]  # sota, caballo, rey (and 3s with 8 kings)

        def keep_score(c: int) -> float:
            r = eff[c]
            score = 0.0
            if counts[r] >= 2:
                score += 3 + r / 10  # part of pares
            if r == _REY:
                score += 2.5
            elif r == _AS:
                score += 1.5
            elif r >= 7 and len(tens) >= 2:
                score += 1.2  # toward juego with other ten-point cards
            return score

        keep = [c for c in cards if keep_score(c) >= 1.5]
        throw = [c for c in cards if c not in keep]
        if len(throw) < rng.min_count:  # must discard at least one: the least useful
            throw = sorted(cards, key=keep_score)[: rng.min_count]
        return discard(throw[: rng.max_count])

    # ------------------------------------------------------------------ betting
    def _bet(self, obs: Observation) -> Action:
        lance = obs.lance if obs.lance is not None else Lance.GRANDE
        s = self._strength(obs, lance)
        legal = obs.legal
        bet = obs.bet
        target = obs.target_points
        they_close = obs.their_score >= target - 6

        if bet is None:  # opening: paso, envido or órdago
            if legal.can(ActionKind.ORDAGO) and (s >= 0.985 or (they_close and s >= 0.93)):
                return ordago()
            if legal.can(ActionKind.ENVIDO) and s >= 0.72:
                amount = 2 if s < 0.88 else 4
                return legal.envido(amount) or paso()
            return _kind(obs, ActionKind.PASO) if legal.can(ActionKind.PASO) else legal.fixed[0]

        # Answering a live bet.
        if bet.is_ordago:
            accept = s >= 0.9 or (they_close and s >= 0.6)
            return _answer(obs, accept)
        stake = bet.stake
        if legal.can(ActionKind.ORDAGO) and s >= 0.985:
            return ordago()
        if legal.can(ActionKind.ENVIDO) and s >= 0.9 and stake < 10:
            return legal.envido(2) or quiero()
        # The more is at stake, the stronger the hand must be to see it.
        threshold = min(0.85, 0.5 + 0.04 * stake)
        return _answer(obs, s >= threshold)

    def _strength(self, obs: Observation, lance: Lance) -> float:
        kings = obs.rules.kings
        among = lance in (Lance.PARES, Lance.JUEGO)
        s = ev.strength(obs.cards, int(lance), kings, among_holders=among)
        # Ties go to the player closer to mano: being early is worth a little.
        s += 0.04 * (1 - obs.position / max(1, obs.num_seats - 1))
        if lance is Lance.JUEGO and ev.total(obs.cards, kings) == 31 and obs.is_mano:
            s = max(s, 0.99)  # 31 from mano cannot lose juego without 31 real
        if among and self._partner_has(obs, lance):
            s += 0.08  # the partner also scores its values and may hold the better hand
        return min(s, 1.0)

    @staticmethod
    def _partner_has(obs: Observation, lance: Lance) -> bool:
        partner = obs.partner
        for e in obs.history:
            if e.kind is EventKind.DECLARATION and e.seat == partner and e.lance is lance and e.value:
                return True
        return False


def _effective(card: int, kings: int) -> int:
    r = card >> 2
    if kings == 8:
        if r == 2:  # tres -> rey
            return _REY
        if r == 1:  # dos -> as
            return _AS
    return r


def _kind(obs: Observation, kind: ActionKind) -> Action:
    for a in obs.legal.fixed:
        if a.kind is kind:
            return a
    return obs.legal.concrete()[0]


def _answer(obs: Observation, accept: bool) -> Action:
    legal = obs.legal
    if accept:
        return quiero() if legal.can(ActionKind.QUIERO) else _kind(obs, ActionKind.QUEREMOS)
    return no_quiero() if legal.can(ActionKind.NO_QUIERO) else _kind(obs, ActionKind.NO_QUEREMOS)


if __name__ == "__main__":
    serve(RuleBot())
