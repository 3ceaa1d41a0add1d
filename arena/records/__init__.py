"""What a hand leaves behind: its results as JSON, its hand-log records, its events in words."""
