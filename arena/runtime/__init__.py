"""How a match runs for speed: the referee's event loops, the CPUs the arena may use, the runtime settings."""
