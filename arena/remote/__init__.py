"""Bot processes and the gRPC client that plays a seat through them."""
