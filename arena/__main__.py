"""``python -m arena`` is the ``mus`` command."""

from arena.cli.main import app

app(prog_name="mus")
