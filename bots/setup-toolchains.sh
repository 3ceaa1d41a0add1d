#!/usr/bin/env bash
# Installs what the bots in other languages need to build and run, from Debian's packages:
# Node.js + npm (bots/js) and a C++ toolchain with gRPC (bots/cpp); openssl for the TLS
# tests; bubblewrap for the strict sandbox (tests/adversarial/test_sandbox.py, and leagues
# run with --sandbox strict); chromium, the headless browser of the HTML report's tests
# (tests/report, driven by Playwright, which never downloads a browser of its own). As
# root it installs what is missing; otherwise it names what to install.
set -euo pipefail

need=()
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
command -v openssl >/dev/null || need+=(openssl)
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v chromium >/dev/null || need+=(chromium)
command -v cmake >/dev/null || need+=(cmake)
command -v make >/dev/null || need+=(make)
command -v g++ >/dev/null || need+=(g++)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v protoc >/dev/null || need+=(protobuf-compiler)
command -v grpc_cpp_plugin >/dev/null || need+=(protobuf-compiler-grpc)
pkg-config --exists protobuf 2>/dev/null || need+=(libprotobuf-dev)
pkg-config --exists grpc++ 2>/dev/null || need+=(libgrpc++-dev)

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing: ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "missing toolchains for the bots in other languages; install them with:" >&2
    echo "  sudo apt-get install --no-install-recommends ${need[*]}" >&2
    exit 1
  fi
fi

# bots/js: dependencies pinned by package-lock.json.
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -d "$here/js/node_modules" ] || [ "$here/js/package-lock.json" -nt "$here/js/node_modules" ]; then
  (cd "$here/js" && npm ci --no-audit --no-fund --loglevel=error)
fi
# Its own copy of proto/ (package.json's prepare script; npm ci runs it too): the strict
# sandbox shows a bot nothing outside its folder. Refreshed every time: proto/ may change.
(cd "$here/js" && npm run --silent prepare)
# bots/cpp: one CMake build (incremental).
bash "$here/cpp/build.sh" >/dev/null
echo "toolchains ready: node $(node --version), $(g++ --version | head -1)"
