"""The rules engine as a forward model for search bots (the referee's own engine, shipped
with the SDK): :class:`MusState`, determinisation from an observation, playouts.

    state = obs.to_state(rng)              # or sample_state(obs, rng)
    sim = state.clone(); sim.apply(action)
    result = play_out_hand(sim, rng)       # the hand's itemised HandResult
    gain = hand_score(result, obs.team)

See docs/sdk.md, "Search: the engine as a forward model", and :mod:`mus_core.forward`.
"""

from mus_core.forward import SamplingError, StateSampler, hand_score, play_out_hand, sample_state
from mus_core.random_play import random_action
from mus_core.state import MusState

__all__ = ["MusState", "SamplingError", "StateSampler", "hand_score", "play_out_hand", "random_action", "sample_state"]
