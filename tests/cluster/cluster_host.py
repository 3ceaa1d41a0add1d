"""A local Ray cluster held by a process of its own, for the cluster tests.

Ray starts its daemons with fork and a ``preexec_fn``; from a pytest worker whose threads
(gRPC's, earlier tests' bot pools) hold locks at that moment, the child can hang before
it runs the daemon (seen in CI: the head's GCS never started). This process starts the
cluster with no other thread alive, prints one JSON line (the address, and each worker
node's raylet socket and pid), then obeys lines on stdin:

- ``kill SOCKET``: the worker node with that raylet socket dies at once (SIGKILL to its
  raylet and workers, Ray's own ``remove_node(allow_graceful=False)``); answers ``killed``;
- end of input: the cluster shuts down.

With CLIENT_PORT, the head also serves Ray Client (``ray://127.0.0.1:CLIENT_PORT``).

    python cluster_host.py NODES CPUS_PER_NODE [CLIENT_PORT]
"""

from __future__ import annotations

import json
import sys

from ray.cluster_utils import Cluster


def main() -> None:
    nodes, cpus = int(sys.argv[1]), int(sys.argv[2])
    head: dict[str, object] = {"num_cpus": 0, "include_dashboard": False, "node_ip_address": "127.0.0.1"}
    if len(sys.argv) > 3:
        head["ray_client_server_port"] = int(sys.argv[3])
    cluster = Cluster(initialize_head=True, head_node_args=head)
    try:
        workers = {}
        for _ in range(nodes):
            node = cluster.add_node(num_cpus=cpus, node_ip_address="127.0.0.1")
            workers[node._raylet_socket_name] = node
        cluster.wait_for_nodes()
        print(json.dumps({"address": cluster.address, "workers": [
            {"raylet_socket": name, "raylet_pid": node.all_processes["raylet"][0].process.pid}
            for name, node in workers.items()]}), flush=True)
        for line in sys.stdin:
            command, _, arg = line.strip().partition(" ")
            if command == "kill":
                cluster.remove_node(workers.pop(arg), allow_graceful=False)
                print("killed", flush=True)
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    main()
