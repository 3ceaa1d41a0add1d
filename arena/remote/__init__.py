"""Bot processes and the gRPC client that plays a seat through them."""

# grpcio reads its configuration when first imported: apply the SDK's transport tuning
# (mus_sdk/_grpc_tuning.py, measured there) before this package's client imports it.
from mus_sdk import _grpc_tuning

_grpc_tuning.tune()
