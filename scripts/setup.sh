#!/usr/bin/env bash
# Installs what the playground needs and is missing, idempotently.
#   scripts/setup.sh          build tools: the pinned Rust toolchain (rust-toolchain.toml), trunk,
#                             wasm-bindgen-cli, npm packages
#   scripts/setup.sh --test   the same, plus chromium and chromium-driver for the browser tests
# Versions are those checked in ../shared/TOOLCHAIN.md; each is skipped when already right.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen crate pinned in Cargo.toml
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# The nightly the project builds with (rust-toolchain.toml: build-std and immediate-abort for
# the release bundle), with the standard library's sources.
TOOLCHAIN=$(sed -n 's/^channel = "\(.*\)"$/\1/p' rust-toolchain.toml)
if ! rustup component list --toolchain "$TOOLCHAIN" --installed 2>/dev/null | grep -qx rust-src; then
  say "installing the Rust toolchain $TOOLCHAIN (about a minute)"
  rustup toolchain install "$TOOLCHAIN" --profile minimal \
    --component rust-src,clippy,rustfmt --target wasm32-unknown-unknown
fi

if [ "$(trunk --version 2>/dev/null | awk '{print $2}')" != "$TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (about 12 minutes on 2 cores, once per machine)"
  # Outside the project, with the machine's default toolchain (TOOLCHAIN.md checked it).
  (cd "$HOME" && cargo install --locked trunk --version "$TRUNK_VERSION")
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ] ||
   ! command -v wasm-bindgen-test-runner >/dev/null; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2 minutes)"
  # Not --locked: its lockfile pins a crate version the registry here lacks (TOOLCHAIN.md).
  (cd "$HOME" && cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force)
fi

# npm packages: binaryen's wasm-opt for Trunk, terser and lightningcss for the bindings and the
# labs' stylesheet (scripts/post-build.mjs), playwright-core and axe-core for the end-to-end tests.
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] ||
   [ ! -d node_modules/terser ] || [ ! -d node_modules/lightningcss ] || [ ! -d node_modules/axe-core ] ||
   [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund
fi

if [ "${1:-}" = "--test" ]; then
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
      say "installing chromium and chromium-driver from Debian"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
    else
      echo "The browser tests need chromium and chromium-driver. Install them as root:" >&2
      echo "  sudo apt-get update && sudo apt-get install -y chromium chromium-driver" >&2
      exit 1
    fi
  fi
fi
say "tools ready"
