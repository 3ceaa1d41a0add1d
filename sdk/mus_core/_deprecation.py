"""Former public names that still work, with a warning (docs/compatibility.md, "Deprecation").

Each former name warns once per process (a ``DeprecationWarning``), then costs one set
lookup: a bot that reads a former name on every decision pays nothing more on its hot
path. A former module attribute is served by the module's ``__getattr__``
(:func:`module_aliases`), so it is out of ``__all__`` and out of ``import *``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping

_warned: set[str] = set()


def deprecated(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn, the first time only, that ``old`` is deprecated in favour of ``new``."""
    if old in _warned:
        return
    _warned.add(old)
    warnings.warn(f"{old} is deprecated: use {new} (it will be removed; see docs/compatibility.md)",
                  DeprecationWarning, stacklevel=stacklevel)


def module_aliases(module: str, aliases: Mapping[str, tuple[object, str]]) -> Callable[[str], object]:
    """A module ``__getattr__`` serving ``aliases`` (former name -> (the object, its
    name now)), each with :func:`deprecated`."""

    def __getattr__(name: str) -> object:
        try:
            target, new = aliases[name]
        except KeyError:
            raise AttributeError(f"module {module!r} has no attribute {name!r}") from None
        # warn <- deprecated <- this <- the module's __getattr__ <- the importing code
        deprecated(f"{module}.{name}", new, stacklevel=4)
        return target

    return __getattr__
