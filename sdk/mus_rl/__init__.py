"""mus_rl: Mus for reinforcement learning (``pip install 'mus-sdk[rl]'``; docs/rl.md).

- :class:`MusEnv` (:mod:`mus_rl.pettingzoo_env`): a PettingZoo AEC environment, one
  agent per seat;
- :class:`MusGymEnv` (:mod:`mus_rl.gym_env`): a Gymnasium environment where one seat
  learns against SDK bots;
- :mod:`mus_rl.openspiel_game`: the game for OpenSpiel (``pip install 'mus-sdk[openspiel]'``),
  and :class:`~mus_rl.openspiel_game.OpenSpielBot`, any OpenSpiel bot as an SDK ``Bot``;
- :mod:`mus_rl.actions` and :mod:`mus_rl.encode`: the discrete action space and the
  observation vector shared by all three;
- :mod:`mus_rl.policy` and :mod:`mus_rl.train`: a small numpy policy and its training.

Names are imported lazily, so ``import mus_rl`` needs none of the optional packages.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MusEnv", "MusGymEnv"]


def __getattr__(name: str) -> Any:
    if name == "MusEnv":
        from mus_rl.pettingzoo_env import MusEnv

        return MusEnv
    if name == "MusGymEnv":
        from mus_rl.gym_env import MusGymEnv

        return MusGymEnv
    raise AttributeError(f"module 'mus_rl' has no attribute {name!r}")
