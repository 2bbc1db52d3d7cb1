#!/usr/bin/env bash
# Runs every test of the playground; fails if any layer fails.
#   1. native: cargo test for the workspace (engine, CLI, app logic), and its documentation
#      built with every link checked
#   2. wasm: wasm-bindgen-test in headless Chromium
#   3. the release build with Trunk (offline)
#   4. end-to-end: Playwright (playwright-core + Debian chromium) against dist/ served on a
#      free loopback port that this script starts and stops
# Ends with a summary line, the bundle size report and the bytes each demo transfers.
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --test || { echo "setup failed" >&2; exit 1; }
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH" TRUNK_SKIP_VERSION_CHECK=true

passed=()
failed=()
step() {
  local name="$1"
  shift
  printf '\n\033[1m==> %s\033[0m\n' "$name"
  if "$@"; then passed+=("$name"); else failed+=("$name"); fi
}

native_tests() { cargo test --workspace --all-targets; }
# A doc link to a renamed or private item is an error, not a warning nobody reads.
api_docs() { RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace; }
# RUSTFLAGS replaces the release bundle's immediate-abort (.cargo/config.toml): a failing wasm
# test prints its panic message.
wasm_tests() {
  RUSTFLAGS="" cargo test -p resilience-playground --target wasm32-unknown-unknown --tests
}
release_build() { trunk build --release; }
e2e_tests() {
  local log port server status
  log=$(mktemp)
  node scripts/serve-dist.mjs dist 0 >"$log" 2>&1 &
  server=$!
  for _ in $(seq 1 50); do
    port=$(sed -n 's#^serving http://127.0.0.1:\([0-9]*\)/$#\1#p' "$log")
    [ -n "$port" ] && break
    sleep 0.1
  done
  if [ -z "${port:-}" ]; then
    echo "the static server did not start:" >&2
    cat "$log" >&2
    kill "$server" 2>/dev/null
    return 1
  fi
  BASE_URL="http://127.0.0.1:$port/" node --test --test-concurrency=1 e2e/
  status=$?
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null
  rm -f "$log"
  return $status
}

step "native tests" native_tests
step "API documentation" api_docs
step "wasm tests (headless Chromium)" wasm_tests
step "release build" release_build
if [[ " ${passed[*]} " == *" release build "* ]]; then
  step "end-to-end tests (Playwright)" e2e_tests
else
  failed+=("end-to-end tests (skipped: no release build)")
fi

echo
[ -d dist ] && scripts/size-report.sh dist
# What one demo costs a learner, counted by the browser (e2e/bytes.test.mjs).
[ -f e2e/bytes-per-demo.txt ] && { echo; cat e2e/bytes-per-demo.txt; }
echo
summary="passed: ${#passed[@]} [${passed[*]}]"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${#failed[@]} [${failed[*]}]; $summary"
  exit 1
fi
echo "ALL TESTS PASSED: $summary"
