"""Hand evaluation for bot authors: the referee's own evaluator (docs/rules.md §1, §4).

This module is :mod:`mus_core.evaluate` (standard library only), under the name bots
have always imported: ``from mus_sdk import evaluate as ev``. All comparison keys are
``int`` where **higher is better**; see that module for the details.

>>> from mus_sdk.types import parse_cards
>>> hand = parse_cards("Ro 3c Co Ab")          # R R C A with 8 kings: 31, par of reyes
>>> evaluate(hand).total, evaluate(hand).pares, evaluate(hand).juego_value
(31, <Pares.PAR: 1>, 3)
"""

from mus_core.evaluate import *  # noqa: F403  (this module is mus_core.evaluate, re-exported whole)
from mus_core.evaluate import __all__ as __all__
