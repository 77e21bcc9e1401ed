#!/usr/bin/env bash
# Issue 21's Hopper targets (docs/sm90.md, session 7), run on the GPU machine from the
# repository root with the bundle of `cargo xtask gpu-bundle` (BUNDLE, default .device/bundle):
# ours and cuBLAS of the same precision timed alternately in rounds in one process (`host sm90
# --rounds`), 4096 and 8192 in separate processes, the library's default (`wgmma`: whole tiles
# at 4096, stream-K `skl` from 12 waves up with the last wave at most 3/5 full: 8192) beside
# whole tiles (`w0_p_dp`); first the GPU tests of that default (`gpu_sm90 the_library`, when the
# bundle has them). About 100 s on an H200 (at most 150 s: each step has a time limit).
#   scripts/gpu-sm90-rounds.sh   JSON to $OUT/rounds_*.json, lines to $OUT/rounds_*.err,
#                                SM clock to $OUT/rounds_clock.csv
set -u
OUT=${OUT:-/tmp/out}
BUNDLE=${BUNDLE:-.device/bundle}
HOST="$BUNDLE/host"
mkdir -p "$OUT"
S16=${S16:-wgmma,wgmma_w0_p_dp}
S32=${S32:-wgmma,wgmma_dp}
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 250 \
    > "$OUT/rounds_clock.csv" 2>/dev/null &
smi=$!
status=0
t0=$(date +%s)
run() {
    local name=$1 limit=$2
    shift 2
    echo "+ [$(($(date +%s) - t0)) s] $*" >> "$OUT/rounds.log"
    timeout "$limit" "$@" > "$OUT/rounds_$name.json" 2> "$OUT/rounds_$name.err" || status=1
}
# Correctness: the library's default where it splits the tail and stream-K on a full grid
# (GPU tests); each timed result below is also checked on sampled rows.
if [ -x "$BUNDLE/tests/gpu_sm90" ]; then
    echo "+ [$(($(date +%s) - t0)) s] gpu_sm90 the_library stream_k" >> "$OUT/rounds.log"
    timeout 35 "$BUNDLE/tests/gpu_sm90" --test-threads 1 the_library stream_k \
        > "$OUT/rounds_tests.txt" 2>&1 || status=1
fi
run 4096 30 "$HOST" sm90 --inputs bf16,fp16 --b n,k --rounds 7 --reps 20 --check-rows 2 \
    --schedules "$S16" 4096
run 8192 45 "$HOST" sm90 --inputs bf16,fp16 --b n,k --rounds 5 --reps 10 --check-rows 2 \
    --schedules "$S16" 8192
run tf32 35 "$HOST" sm90 --inputs tf32 --b n,k --rounds 5 --reps 10 --check-rows 2 \
    --schedules "$S32" 4096 8192
kill "$smi" 2>/dev/null
echo "total $(($(date +%s) - t0)) s, status $status" >> "$OUT/rounds.log"
exit $status
