"""The tools on top of matches: mus check, replay, replay --against, scenarios."""
