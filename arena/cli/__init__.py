"""The ``mus`` command line (Typer): one module per command group."""
