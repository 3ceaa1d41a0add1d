"""mus-arena: a referee, league runner and bot protocol for the card game Mus."""

__version__ = "0.1.0"
