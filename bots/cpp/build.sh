#!/usr/bin/env bash
# Builds bots/cpp/build/cppbot (and build/strategy_test) with CMake against Debian's
# gRPC and protobuf packages. Checks the toolchain first and says what to install.
#
#   bots/cpp/build.sh            # from anywhere; same as
#   cmake -S bots/cpp -B bots/cpp/build && cmake --build bots/cpp/build -j2
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
packages="cmake make g++ pkg-config protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev"

missing=()
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2 (for $1)"); }
need_cmd cmake cmake
need_cmd make make
need_cmd g++ g++
need_cmd pkg-config pkg-config
need_cmd protoc protobuf-compiler
need_cmd grpc_cpp_plugin protobuf-compiler-grpc
if command -v pkg-config >/dev/null 2>&1; then
  pkg-config --exists protobuf || missing+=("libprotobuf-dev (pkg-config protobuf)")
  pkg-config --exists grpc++ || missing+=("libgrpc++-dev (pkg-config grpc++)")
fi
if ((${#missing[@]})); then
  {
    echo "cppbot: the C++ toolchain is incomplete; missing:"
    printf '  - %s\n' "${missing[@]}"
    echo "Install it (Debian/Ubuntu) with:"
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends $packages"
  } >&2
  exit 1
fi

jobs="${CPPBOT_JOBS:-2}"
cmake -S "$here" -B "$here/build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$here/build" -j"$jobs"
echo "built $here/build/cppbot"
