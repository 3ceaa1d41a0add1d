"""Translation between engine values and the mus.v1 wire messages."""
