"""Tune grpcio in the test process as the arena tunes its own (arena/remote/grpc_tuning.py),
before any test module imports grpc: the ``run.grpc_experiments`` of matches played in
this process and of ``mus`` subprocesses (which inherit its environment) then agree
whatever order the test files run in (a file importing grpc first used to leave this
process untuned while every ``mus`` it started tuned itself)."""

from arena.remote import grpc_tuning

grpc_tuning.tune()
