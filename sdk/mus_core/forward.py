"""The engine as a bot's forward model: sample a full :class:`MusState` from what one seat
knows (determinisation), and play a hand out on it.

A bot sees an observation (its cards, the public history of the hand with the señas it
saw, the scores); a search needs whole states. :func:`sample_state` builds one that
agrees with everything the seat has seen, the hidden cards drawn uniformly among the
assignments that agree; :meth:`MusState.clone` and :meth:`MusState.apply` then try
actions on it, and :func:`play_out_hand` plays it to the end of the hand and returns the
hand's itemised :class:`HandResult`.

How the state is built (and why not by re-simulating the whole hand)
--------------------------------------------------------------------
Re-simulating from a sampled deal would need the cards every seat held before each
discard round and which ones it threw: a seat's observation does not carry even its
own earlier cards, and the replacements come from the stock in an order a backward
sampler would have to reproduce (reshuffles included). Nothing after the last
replacements depends on those earlier cards, though. So the state is built at the last
point where every seat held four cards, the start of the hand or the last
``REPLACEMENTS`` event, and only the rest of the hand is re-played through the engine:

1. The cards the seat has not seen (all 40 but its own) are shuffled: the other seats'
   four cards come first (and, if the seat itself has already discarded in the
   current round, the cards it threw), then the discard pile, then the stock. Their
   sizes follow from the history: the pile holds every card discarded in the hand
   minus those reshuffled into the stock (``RESHUFFLE`` events say how many).
2. Rejection: a draw is kept only if every pares/juego declaration and every seña in
   the re-played part of the history is true of the drawn hands (declarations are
   automatic and honest, and the engine accepts only true señas, docs/rules.md §5, §9),
   else the whole draw starts again. A rejection of the whole draw keeps the result
   exactly uniform over the consistent assignments; each try costs one shuffle and a
   table look-up per hand, and a try is abandoned at the first seat that fails.
3. :meth:`MusState.from_deal` deals the drawn hands with the scores before this hand's
   dejes; the part of the history before that point is copied in as it is (the seat's
   view shows it unchanged), and the rest is re-played with :meth:`MusState.apply` and
   :meth:`MusState.give_sena`, so the engine itself re-computes the declarations, the
   lances, the dejes and the betting state. A discard in the current round throws
   cards drawn uniformly from that seat's drawn hand.

What is not conditioned on
--------------------------
- Señas given before the last replacements described a hand that has since changed;
  they are not applied to the drawn hands (a seña that survived a small discard, e.g.
  "dos reyes" and one card thrown, does say something; a bot may reject such samples
  itself).
- The other seats' choices (a mus, a discard of one card, an envido) are strategy, not
  rules: the sample is uniform given the rules, and weighting by an opponent model is
  the bot's business.
- The seat's own earlier discards (``own_discards``, which the arena sends) are kept out
  of the other hands while they are in the pile (no reshuffle since); a caller may give
  them as ``known_discards`` instead.
- Señas the seat did not see do not exist in the sampled state.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from mus_core._deprecation import module_aliases
from mus_core.actions import Action, discard
from mus_core.cards import CARDS, Card
from mus_core.evaluate import RANK_BITS, HandValue, table
from mus_core.events import EventKind, HandResult, Lance, Phase, Sena
from mus_core.observation import Observation
from mus_core.random_play import random_action
from mus_core.rules import MusCorrido, Rules
from mus_core.state import MusState, _true_senas

__all__ = ["SamplingError", "StateSampler", "hand_score", "play_out_hand", "sample_state"]

MAX_TRIES = 200_000
"""Rejection gives up after this many draws (only an inconsistent observation, or a
seña with a probability below ~1e-5, could get there)."""


class SamplingError(ValueError):
    """No consistent state was found: the observation contradicts itself (or is too
    unlikely to sample by rejection)."""


class _Plan:
    """What a history says about the hidden cards, computed once per observation."""

    __slots__ = (
        "constraints", "dejes", "first_mano", "known_out", "n", "own_extra", "own_round", "pile_size", "prefix",
        "prefix_thrown", "prefix_vis", "reshuffles", "stock_size", "suffix", "unseen",
    )

    def __init__(self, obs: Observation, known_discards: Iterable[Card] | None) -> None:
        rules = obs.rules
        n = self.n = rules.players
        seat = obs.seat
        history = list(obs.history)
        cut = 0
        for i, e in enumerate(history):
            if e.kind is EventKind.REPLACEMENTS:
                cut = i + 1
        self.prefix = history[:cut]
        self.suffix = history[cut:]
        bit = 1 << seat
        # The seat saw every seña of its history; its partners see its own too.
        self.prefix_vis = {i: bit | (1 << e.seat) for i, e in enumerate(self.prefix) if e.kind is EventKind.SIGNAL and e.seat is not None}
        thrown = sum(e.value for e in self.prefix if e.kind is EventKind.DISCARD)
        reshuffled = sum(e.value for e in self.prefix if e.kind is EventKind.RESHUFFLE)
        self.reshuffles = sum(1 for e in self.prefix if e.kind is EventKind.RESHUFFLE)
        self.pile_size = thrown - reshuffled
        self.stock_size = 40 - 4 * n - self.pile_size
        dejes = [0, 0]
        for e in history:
            if e.kind is EventKind.DEJE and e.team is not None:
                dejes[e.team] += e.value
        self.dejes = dejes
        # Mano at the start of the re-played part: the first to speak in a mus round (a
        # mus_corrido cut in it moves the mano to the cutter afterwards).
        self.first_mano = next((e.seat for e in self.suffix if e.kind is EventKind.MUS_CALL and e.seat is not None), obs.mano)
        # The seat's own cards already thrown in the current round are hidden from it too.
        self.own_extra = sum(e.value for e in self.suffix if e.kind is EventKind.DISCARD and e.seat == seat)
        own = set(obs.cards)
        # The cards the seat threw this round, if it is looked at before its replacements
        # (never when it is asked to act): known from own_discards, else drawn.
        self.own_round: list[Card] = []
        if known_discards is None:
            mine = tuple(obs.own_discards)
            known_discards = mine[:len(mine) - self.own_extra]
            if self.own_extra and len(mine) >= self.own_extra:
                self.own_round = [CARDS[c] for c in mine[len(mine) - self.own_extra:]]
        known = tuple(CARDS[c] for c in known_discards)
        self.prefix_thrown = known  # what the seat threw in earlier rounds: the sampled state's record
        # Own discards are in the pile unless a reshuffle since may have dealt them again.
        out: set[Card] = set()
        if known and self.reshuffles == 0 and not any(e.kind is EventKind.RESHUFFLE for e in self.suffix):
            out = set(known) - own
        self.known_out = sorted(out)
        self.unseen = [c for c in CARDS if c not in own and c not in out and c not in self.own_round]
        self.pile_size -= len(out)
        if self.pile_size < 0:
            raise SamplingError("known_discards: more cards than the discard pile holds")
        # Per seat, the tests its four drawn cards must pass.
        constraints: list[list[Callable[[HandValue], bool]]] = [[] for _ in range(n)]
        for e in self.suffix:
            # The seat's own hand needs no test, unless it holds fewer than four cards
            # now: the ones it threw this round are drawn too, and its señas bind them.
            if e.seat is None or (e.seat == seat and not self.own_extra):
                continue
            if e.kind is EventKind.DECLARATION:
                constraints[e.seat].append(_declared(e.lance, bool(e.value)))
            elif e.kind is EventKind.SIGNAL and e.sena is not None:
                constraints[e.seat].append(_signalled(e.sena))
        self.constraints = constraints


def _declared(lance: Lance | None, has: bool) -> Callable[[HandValue], bool]:
    if lance is Lance.PARES:
        return lambda v: (v.pares_key > 0) == has
    return lambda v: (v.juego_key > 0) == has


def _signalled(sena: Sena) -> Callable[[HandValue], bool]:
    return lambda v: sena in _true_senas(v)


def sample_state(obs: Observation, rng: random.Random, known_discards: Iterable[Card] | None = None) -> MusState:
    """A full state consistent with what ``obs.seat`` knows, hidden cards drawn uniformly.

    ``obs`` is the engine's ``Observation`` (``MusState.view``) or the SDK's (what
    ``Bot.decide`` receives; ``mus_sdk.Observation.to_state`` calls this). The state's
    ``view(obs.seat)`` has the same cards, history, scores and legal actions as ``obs``.
    See the module docstring for what is and is not conditioned on. ``known_discards``:
    the cards the seat threw in this hand; default ``obs.own_discards``.

    Raises:
        SamplingError: no consistent assignment was found in :data:`MAX_TRIES` draws.
    """
    return StateSampler(obs, known_discards).sample(rng)


class StateSampler:
    """:func:`sample_state` for many samples of one observation: what the history says
    about the hidden cards is read once (about a third of a sample's cost)."""

    __slots__ = ("_obs", "_plan")

    def __init__(self, obs: Observation, known_discards: Iterable[Card] | None = None) -> None:
        self._obs = obs
        self._plan = _Plan(obs, known_discards)

    def sample(self, rng: random.Random) -> MusState:
        """One state, as :func:`sample_state` (a new draw each call).

        Raises:
            SamplingError: no consistent assignment was found in :data:`MAX_TRIES` draws.
        """
        return _build(self._obs, self._plan, rng, None)[0]

    def sample_weighted(
        self, rng: random.Random, likelihood: Callable[[MusState, Action], float]
    ) -> tuple[MusState, float]:
        """One state as :meth:`sample`, with its weight under an opponent model: the
        product of ``likelihood(state, action)`` over the actions of the other seats
        re-played since the last replacements (``state`` as it stood before each one).

        The draw stays uniform; the weight is for the bot to use (importance sampling:
        weigh each sample's results by it), e.g. a likelihood that is high when the
        model would have bet as the seat did with the drawn cards.
        """
        return _build(self._obs, self._plan, rng, likelihood)


def _draw(obs: Observation, plan: _Plan, rng: random.Random) -> tuple[list[list[Card]], list[Card]]:
    """Four cards for every seat (the seat's own plus what it threw this round) and the
    rest, by rejection over the whole draw."""
    n, seat, own = plan.n, obs.seat, list(obs.cards)
    unseen = plan.unseen
    table = _tables(obs.rules)
    constraints = plan.constraints
    shuffle = rng.shuffle
    rb = RANK_BITS
    for _ in range(MAX_TRIES):
        shuffle(unseen)
        hands: list[list[Card]] = []
        k = 0
        ok = True
        for s in range(n):
            if s == seat:
                if plan.own_round:
                    h = own + plan.own_round
                else:
                    extra = plan.own_extra
                    h = own + unseen[k:k + extra]
                    k += extra
            else:
                h = unseen[k:k + 4]
                k += 4
            tests = constraints[s]
            if tests:
                v = table[rb[h[0]] + rb[h[1]] + rb[h[2]] + rb[h[3]]]
                if not all(t(v) for t in tests):
                    ok = False
                    break
            hands.append(h)
        if ok:
            return hands, unseen[k:]
    raise SamplingError(f"no consistent deal in {MAX_TRIES} draws")


_TABLES: dict[tuple[int, object], dict[int, HandValue]] = {}


def _tables(rules: Rules) -> dict[int, HandValue]:
    key = (rules.kings, rules.juego_real)
    t = _TABLES.get(key)
    if t is None:
        t = _TABLES[key] = table(rules.kings, rules.juego_real)
    return t


def _build(
    obs: Observation, plan: _Plan, rng: random.Random, likelihood: Callable[[MusState, Action], float] | None
) -> tuple[MusState, float]:
    rules = obs.rules
    hands, rest = _draw(obs, plan, rng)
    rest = plan.known_out + rest  # the seat's known discards lie in the pile
    scores = (obs.scores[0] - plan.dejes[0], obs.scores[1] - plan.dejes[1])
    state = MusState.from_deal(
        rules, hands, mano=plan.first_mano, stock=rest, scores=scores,
        games_won=(obs.games_won[0], obs.games_won[1]), seed=rng.getrandbits(128),
        hand_no=obs.hand, game_no=obs.game,
    )
    # The engine's private fields are set here, in its own package, for the one thing
    # from_deal cannot say: that this hand is already some way in.
    state._vacas = [obs.vacas_won[0], obs.vacas_won[1]]
    mc = rules.mus_corrido
    corrido = rules.max_mus_rounds != 0 and (
        (mc is MusCorrido.FIRST_HAND_OF_MATCH and obs.hand == 0)
        or (mc is MusCorrido.FIRST_HAND_OF_EACH_GAME and scores == (0, 0))
    )
    if state._phase != Phase.BETTING:
        state._corrido = corrido
        state._sig_window = None if corrido else set()
    if plan.prefix:
        # The pile: the first pile_size of the rest (from_deal put them all in the stock).
        pile_size = plan.pile_size + len(plan.known_out)
        state._pile = rest[:pile_size]
        state._stock = rest[pile_size:]
        state._history = list(plan.prefix) + state._history
        state._sig_vis = dict(plan.prefix_vis)
        state._discard_round = obs.discard_round
        state._reshuffles = plan.reshuffles
        # The other seats' earlier discards are unknown, and not recorded.
        state._thrown = tuple(plan.prefix_thrown if s == obs.seat else () for s in range(plan.n))
        limit = rules.max_mus_rounds
        if limit is not None and obs.discard_round >= limit:
            state._corrido = False
            state._start_lances()
            state._sig_window = set()
    return state, _replay_suffix(state, obs, plan, rng, likelihood)


def _replay_suffix(
    state: MusState, obs: Observation, plan: _Plan, rng: random.Random,
    likelihood: Callable[[MusState, Action], float] | None,
) -> float:
    """Apply the hand's events since its last replacements (``plan.suffix``) to ``state``:
    the other seats' discards drawn from their sampled hands, the seat's own as it
    made them. Returns the sample's weight: the product of ``likelihood`` over the
    other seats' actions (1.0 without one)."""
    seat_bit = 1 << obs.seat
    own = set(obs.cards)
    weight = 1.0
    for e in plan.suffix:
        kind = e.kind
        if kind is EventKind.BET or kind is EventKind.MUS_CALL:
            assert e.action is not None
            if likelihood is not None and e.seat != obs.seat:
                weight *= likelihood(state, e.action)
            state.apply(e.action)
        elif kind is EventKind.DISCARD:
            s = state.to_act
            assert s is not None
            held = state._hands[s]
            if s == obs.seat:
                thrown = [c for c in held if c not in own]
            else:
                thrown = rng.sample(held, e.value)
            action = discard(thrown)
            if likelihood is not None and s != obs.seat:
                weight *= likelihood(state, action)
            state.apply(action)
        elif kind is EventKind.SIGNAL:
            assert e.seat is not None and e.sena is not None
            at = len(state._history)
            state.give_sena(e.seat, e.sena)
            state._sig_vis[at] |= seat_bit
    return weight


def play_out_hand(
    state: MusState, rng: random.Random, policy: Callable[[MusState], Action] | None = None
) -> HandResult:
    """Play ``state`` (changed in place: clone it first to keep it) to the end of the
    current hand and return the hand's itemised result.

    ``policy(state)`` picks the action of ``state.to_act``; by default uniform random
    legal play (:func:`mus_core.random_play.random_action`).

    Raises:
        ValueError: the match is over (there is no hand to play).
    """
    if state.is_terminal:
        raise ValueError("the match is over: no hand to play out")
    done = len(state.hand_results)
    apply = state.apply
    if policy is None:
        while len(state.hand_results) == done:
            apply(random_action(rng, state.legal_actions()))
    else:
        while len(state.hand_results) == done:
            apply(policy(state))
    return state.hand_results[done]


def hand_score(result: HandResult, team: int, game_value: int = 40) -> int:
    """``team``'s stones in the hand minus the other team's; a hand that ends the game
    counts ``game_value`` stones for its winner instead (an accepted órdago, or the
    count reaching the target)."""
    if result.game_over:
        return game_value if result.game_winner == team else -game_value
    before, after = result.scores_before, result.scores_after
    return (after[team] - before[team]) - (after[1 - team] - before[1 - team])


_former = module_aliases(__name__, {"ObservationLike": (Observation, "Observation")})


def __getattr__(name: str) -> object:
    """Former names, with a ``DeprecationWarning``: ``ObservationLike`` (the protocol that
    bridged the engine's and the SDK's observations) is :class:`Observation`, now one class."""
    return _former(name)
