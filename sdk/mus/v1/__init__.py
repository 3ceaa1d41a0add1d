"""Generated protobuf and gRPC code for the mus-arena protocol."""
