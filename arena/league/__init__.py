"""Leagues: configuration, schedule, running matches, standings."""
