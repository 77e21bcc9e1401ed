#!/usr/bin/env bash
# A short fuzz run of every target, for CI: each starts from the committed regression corpus
# (<crate>/tests/fuzz_regressions/<target>, only read) and writes what it finds to a temporary
# directory, so the tree is left as it was. Exits non-zero on the first crash, panic, leak or
# hang; the input that caused it is in fuzz/artifacts/<target>/. See docs/fuzzing.md.
#
# Usage: fuzz/smoke.sh [SECONDS_PER_TARGET]   (default 30)
set -euo pipefail

seconds=${1:-30}
cd "$(dirname "$0")"

# The version docs/fuzzing.md was written against; --locked builds it as released.
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --version 0.13.2 --locked
fi

for entry in core/graph_reader report/bench_records; do
    crate=${entry%/*} target=${entry#*/}
    options=(-max_total_time="$seconds" -print_final_stats=1)
    if [[ -f "$target.dict" ]]; then
        options+=(-dict="$target.dict")
    fi
    found=$(mktemp -d)
    echo "==> fuzzing $target for $seconds s"
    cargo fuzz run "$target" "$found" "../$crate/tests/fuzz_regressions/$target" -- "${options[@]}"
    rm -rf "$found"
done
