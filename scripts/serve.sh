#!/usr/bin/env bash
# Builds the release bundle and serves it on 127.0.0.1.
#   scripts/serve.sh [--port N]      (or PORT=N scripts/serve.sh; default 8080)
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-8080}"
while [ $# -gt 0 ]; do
  case "$1" in
    --port) PORT="${2:?--port needs a number}"; shift 2 ;;
    --port=*) PORT="${1#--port=}"; shift ;;
    *) echo "usage: scripts/serve.sh [--port N]" >&2; exit 2 ;;
  esac
done

scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH" TRUNK_SKIP_VERSION_CHECK=true
trunk build --release
exec node scripts/serve-dist.mjs dist "$PORT"
