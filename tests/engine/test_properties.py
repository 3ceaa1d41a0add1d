"""Property-based tests over seeds and random legal play (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mus_core import (
    MUS,
    NO_MUS,
    NO_QUIERO,
    ORDAGO,
    PASO,
    QUEREMOS,
    QUIERO,
    Action,
    EventKind,
    IllegalActionError,
    LiveBet,
    MusCorrido,
    Phase,
    Rules,
    discard,
    envido,
    is_in,
)
from mus_core.random_play import random_action
from mus_core.state import MusState

RULESETS = [
    Rules(),
    Rules(kings=4, target_points=30),
    Rules(players=2),
    Rules(players=6),
    Rules(max_stake=10, plural_answers_bind_partner=True),
    Rules(mus_corrido=MusCorrido.FIRST_HAND_OF_EACH_GAME),
    Rules(max_mus_rounds=2, games_to_win=1),
]

seeds = st.integers(min_value=0, max_value=2**32)
rulesets = st.sampled_from(RULESETS)
slow = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _total_cards(state: MusState) -> list[int]:
    return sorted([c for h in state.hands for c in h] + list(state.stock) + list(state.pile))


def _play(rules: Rules, seed: int, on_step=None, max_steps: int = 200_000) -> MusState:
    state = MusState.new(rules, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not state.is_terminal:
        if on_step is not None:
            on_step(state, rng)
        legal = state.legal_actions()
        assert legal, "legal_actions is empty before the end"
        state.apply(random_action(rng, legal))
        steps += 1
        assert steps < max_steps, "the match does not terminate"
    return state


@slow
@given(rules=rulesets, seed=seeds)
def test_cards_conserved_and_four_per_hand(rules: Rules, seed: int) -> None:
    """40 cards in every state; four cards per hand (during a discard round, a seat that
    has discarded holds four minus its discards until the replacements are served)."""

    def check(state: MusState, rng: random.Random) -> None:
        assert _total_cards(state) == list(range(40))
        if state.phase == Phase.DISCARD:
            # This round's discards: the DISCARD events since the last mus call.
            events = state.history_events
            last_call = max(i for i, e in enumerate(events) if e.kind is EventKind.MUS_CALL)
            thrown = [0] * state.n
            for e in events[last_call:]:
                if e.kind is EventKind.DISCARD:
                    thrown[e.seat] += e.value  # type: ignore[index]
            assert all(len(h) + d == 4 for h, d in zip(state.hands, thrown, strict=True))
        else:
            assert all(len(h) == 4 for h in state.hands)

    _play(rules, seed, check)


@slow
@given(rules=rulesets, seed=seeds)
def test_match_ends_with_a_winner(rules: Rules, seed: int) -> None:
    """Every match terminates; the winner won enough games; legal_actions is empty at the end."""
    state = _play(rules, seed)
    assert state.match_winner in (0, 1)
    assert state.legal_actions() == ()
    assert state.to_act is None
    won = sum(1 for h in state.hand_results if h.game_over and h.game_winner == state.match_winner)
    assert won >= rules.games_to_win


@slow
@given(rules=rulesets, seed=seeds)
def test_scores_never_decrease_within_a_game(rules: Rules, seed: int) -> None:
    """Within a game, team scores only go up; a new game starts at 0-0."""
    last: dict[str, tuple[int, int]] = {}

    def check(state: MusState, rng: random.Random) -> None:
        now = (state.scores[0], state.scores[1])
        key = f"{state.game_no}"
        if key in last:
            assert now[0] >= last[key][0] and now[1] >= last[key][1]
        else:
            assert now == (0, 0) or state.hand_no == 0
        last[key] = now

    state = _play(rules, seed, check)
    for h in state.hand_results:
        assert h.scores_after[0] >= h.scores_before[0] and h.scores_after[1] >= h.scores_before[1]
        if h.game_over:
            assert max(h.scores_after) >= rules.target_points or h.ended_by.startswith("ordago")


def _probe_actions(state: MusState) -> list[Action]:
    seat = state.to_act
    assert seat is not None
    others = [c for c in range(40) if c not in state.hands[seat]]
    own = state.hands[seat]
    return [
        MUS, NO_MUS, PASO, QUIERO, NO_QUIERO, ORDAGO, QUEREMOS, envido(0), envido(1), envido(2),
        envido(7), envido(1000), discard(own[:1]), discard(own), discard([others[0]]), discard([]),
    ]


@slow
@given(rules=rulesets, seed=seeds)
def test_illegal_actions_are_rejected_without_change(rules: Rules, seed: int) -> None:
    """Every action outside legal_actions raises IllegalActionError and changes nothing."""

    def check(state: MusState, rng: random.Random) -> None:
        if rng.random() > 0.3:
            return
        legal = state.legal_actions()
        for action in _probe_actions(state):
            if is_in(action, legal):
                assert state.is_legal(action)
                continue
            before = [state.view(s) for s in range(state.n)], list(state.scores), state.to_act
            try:
                state.apply(action)
            except IllegalActionError as exc:
                assert exc.seat == state.to_act and exc.action == action and exc.legal == legal
            else:
                raise AssertionError(f"{action} was accepted but is not in {legal}")
            after = [state.view(s) for s in range(state.n)], list(state.scores), state.to_act
            assert before == after

    _play(rules, seed, check)


@slow
@given(rules=rulesets, seed=seeds)
def test_views_hide_other_seats_cards(rules: Rules, seed: int) -> None:
    """A seat's view holds its own cards only; nothing in it names another seat's cards."""

    def check(state: MusState, rng: random.Random) -> None:
        for seat in range(state.n):
            view = state.view(seat)
            assert sorted(view.cards) == sorted(state.hands[seat])
            hidden = {c for s, h in enumerate(state.hands) if s != seat for c in h}
            hidden |= set(state.stock) | set(state.pile)
            for event in view.history:
                assert event.kind is not EventKind.DISCARD or event.seat is not None
                if event.action is not None:
                    assert not set(event.action.cards) & hidden
            for entry in view.legal_actions:
                assert not set(getattr(entry, "cards", ())) & hidden
            if view.phase is not Phase.MATCH_OVER:
                assert view.to_act == state.to_act

    _play(rules, seed, check)


@settings(max_examples=25, deadline=None)
@given(rules=rulesets, seed=seeds)
def test_same_seed_same_match(rules: Rules, seed: int) -> None:
    """Determinism: the same seed and the same (seeded) players give the same match."""
    a = _play(rules, seed)
    b = _play(rules, seed)
    assert a.hand_results == b.hand_results


@settings(max_examples=25, deadline=None)
@given(seed=seeds)
def test_clone_is_independent(seed: int) -> None:
    """A clone plays on identically and never disturbs the original."""
    state = MusState.new(Rules(), seed=seed)
    rng = random.Random(seed)
    for _ in range(rng.randint(0, 12)):
        if state.is_terminal:
            return
        state.apply(random_action(rng, state.legal_actions()))
    twin = state.clone()
    snapshot = [state.view(s) for s in range(4)], list(state.scores), list(state.stock)
    r1, r2 = random.Random(1), random.Random(1)
    while not twin.is_terminal:
        twin.apply(random_action(r1, twin.legal_actions()))
    assert ([state.view(s) for s in range(4)], list(state.scores), list(state.stock)) == snapshot
    while not state.is_terminal:
        state.apply(random_action(r2, state.legal_actions()))
    assert state.hand_results == twin.hand_results


def _observable(state: MusState) -> tuple[object, ...]:
    """Everything a referee or a seat can read of a state."""
    return (
        [state.view(s) for s in range(state.rules.players)], list(state.scores), list(state.stock),
        list(state.hand_results), state.to_act, state.is_terminal, state.history_events,
    )


def _streams(state: MusState) -> tuple[object, ...]:
    """The positions of the random streams: every draw is labelled by the hand (its
    deal: hands dealt so far, the last hand of a match deals nothing after it), the
    reshuffles of the hand, or the seña draws so far."""
    return state.hand_no + (not state.is_terminal), state._reshuffles, state._sena_draws


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, rules=st.sampled_from(RULESETS), swap=st.integers(0, 3))
def test_what_if_is_apply_on_a_copy(seed: int, rules: Rules, swap: int) -> None:
    """``what_if(a)`` leaves the state untouched and gives what ``apply(a)`` gives; it is
    None exactly when applying draws from the random streams (a deal, a reshuffle); and
    a match that carries on with its results (every ``swap``-th time) plays identically."""
    state = MusState.new(rules, seed=seed)
    twin = MusState.new(rules, seed=seed)  # applies only
    rng = random.Random(seed)
    steps = hits = 0
    while not state.is_terminal:
        action = random_action(rng, state.legal_actions())
        before, streams = _observable(state), _streams(state)
        guess = state.what_if(action)
        assert _observable(state) == before and _streams(state) == streams
        twin.apply(action)
        if guess is None:
            state.apply(action)
            assert _streams(state) != streams, f"step {steps}: None without a draw"
        else:
            hits += 1
            assert _observable(guess) == _observable(twin) and _streams(guess) == streams
            if swap and steps % (swap + 1) == 0:
                state = guess  # carry on with the copy, as the referee does on a hit
            else:
                state.apply(action)
        assert _observable(state) == _observable(twin)
        steps += 1
    assert state.hand_results == twin.hand_results
    assert hits > steps // 2  # most actions draw nothing


def test_what_if_of_an_illegal_action_is_none() -> None:
    state = MusState.new(Rules(), seed=4)
    illegal = QUIERO if QUIERO not in state.legal_actions() else ORDAGO
    assert not state.is_legal(illegal)
    assert state.what_if(illegal) is None


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 2**32))
def test_the_live_bet_read_is_always_the_state_s(seed: int, moves: int) -> None:
    """``state.bet`` (kept from one read to the next while the bet stands) equals, at
    every step of a random match, one built afresh from what the state holds; a clone's
    is its own."""
    rng = random.Random(moves)
    state = MusState.new(Rules(), seed=seed)
    while not state.is_terminal:
        bet = state.bet
        if bet is not None:
            fresh = LiveBet(state._bet_team, state._bet_seat, state._stake, state._deje, state._is_ordago)
            assert bet == fresh and state.bet is bet
            assert state.clone().bet == fresh
        else:
            assert state.current_lance is None or state._bet_team < 0
        state.apply(random_action(rng, state.legal_actions()))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 2**32), players=st.sampled_from([2, 4, 6]))
def test_public_numbers_are_the_properties(seed: int, moves: int, players: int) -> None:
    """``public_numbers()`` gives, at every step of a random match, what the
    properties it stands for give one by one (the live bet as its team, stake and
    órdago flag, ``(-1, 0, False)`` when none)."""
    rng = random.Random(moves)
    state = MusState.new(Rules(players=players), seed=seed)
    while True:
        view = state.view(0)
        bet = state.bet
        assert state.public_numbers() == (
            state.hand_no, state.history_len, state.mano, view.phase, state.current_lance, *state.scores,
            *state.games_won, state.discard_round,
            *((-1, 0, False) if bet is None else (bet.team, bet.stake, bet.is_ordago)))
        if state.is_terminal:
            break
        state.apply(random_action(rng, state.legal_actions()))
