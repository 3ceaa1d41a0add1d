"""Players that are not remote processes: random play and SDK bots run in-process."""
