"""Bot processes and the gRPC client that plays a seat through them."""

# grpcio reads its configuration when first imported: tune it (arena/remote/grpc_tuning.py,
# measured there) before this package's client imports it.
from arena.remote import grpc_tuning

grpc_tuning.tune()
