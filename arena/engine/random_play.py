"""Uniform random legal play: moved to :mod:`mus_core.random_play` (shipped with the SDK,
so a bot's playouts use it too); this name keeps working."""

from mus_core.random_play import MAX_RANDOM_ENVIDO, random_action

__all__ = ["MAX_RANDOM_ENVIDO", "random_action"]
