"""The asyncio driver: plays a pure MatchSession against Players."""
