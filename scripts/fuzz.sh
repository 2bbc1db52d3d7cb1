#!/usr/bin/env bash
# Runs every fuzz target long (issue 14 §5): CASES inputs per target (default 20000), in
# release with debug assertions and overflow checks on (an overflow panics as in a debug
# build: what a fuzzer should find), then prints the inputs run per target and in total.
#
#   scripts/fuzz.sh [CASES]        e.g. scripts/fuzz.sh 100000
#
# The targets: crates/resilience-sim/tests/fuzz.rs (breaker scripts, scenario files, lab
# links) and tests/fuzz_links.rs (tick demo links, the settings panel, lab links as the
# page opens them). `cargo test` runs both briefly (FUZZ_CASES unset). A failure is shrunk,
# printed, and saved next to its target (*.proptest-regressions), replayed on every run.
# Builds in target/fuzz (its own profile settings; the shared target/release is untouched).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

cases="${1:-20000}"
if ! [[ "$cases" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh [CASES]  (CASES: inputs per target, a whole number)" >&2
  exit 2
fi
export FUZZ_CASES="$cases"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/fuzz}"
# `cargo test --release` builds with the bench profile (which inherits release): both get
# the same settings. No LTO (that is for the wasm bundle) and parallel codegen, for a
# quicker build.
for profile in RELEASE BENCH; do
  export "CARGO_PROFILE_${profile}_OPT_LEVEL=3"
  export "CARGO_PROFILE_${profile}_DEBUG_ASSERTIONS=true"
  export "CARGO_PROFILE_${profile}_OVERFLOW_CHECKS=true"
  export "CARGO_PROFILE_${profile}_LTO=false"
  export "CARGO_PROFILE_${profile}_CODEGEN_UNITS=16"
  export "CARGO_PROFILE_${profile}_PANIC=unwind"
done

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
status=0
echo "fuzzing with $cases inputs per target (release, overflow checks on)"
cargo test --release -p resilience-sim --test fuzz -- --nocapture 2>&1 | tee -a "$log" || status=1
cargo test --release -p resilience-playground --test fuzz_links -- --nocapture 2>&1 | tee -a "$log" || status=1

echo
echo "== fuzz summary: $cases cases per target =="
awk '
  # A line may start with the harness'"'"'s "test NAME ... ": match anywhere in it.
  match($0, /fuzz [^ ]+: [0-9]+ inputs \([0-9]+ cases\) in [^,]+/) {
    split(substr($0, RSTART, RLENGTH), f, " ")
    name = f[2]; sub(":", "", name)
    printf "  %-32s %9d inputs  %s\n", name, f[3], f[8]
    total += f[3]
  }
  END {
    printf "  %-32s %9d inputs\n", "total", total
  }
' "$log"
echo "  wall time: $((SECONDS - start)) s (build included)"
if [ $status -ne 0 ]; then
  echo "FUZZING FOUND A FAILURE (see above: the minimal failing input is printed)"
fi
exit $status
