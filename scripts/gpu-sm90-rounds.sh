#!/usr/bin/env bash
# Issue 21's Hopper targets (docs/sm90.md, session 7), run on the GPU machine from the
# repository root with the bundle of `cargo xtask gpu-bundle` (BUNDLE, default .device/bundle):
# ours and cuBLAS of the same precision timed alternately in rounds in one process (`host sm90
# --rounds`), 4096 and 8192 in separate processes, the library's default (`wgmma`: whole tiles
# at 4096, stream-K `skl` from 8 waves up) beside the named candidates. About 150 s on an H200.
#   scripts/gpu-sm90-rounds.sh   JSON to $OUT/rounds_*.json, lines to $OUT/rounds_*.err,
#                                SM clock to $OUT/rounds_clock.csv
set -u
OUT=${OUT:-/tmp/out}
BUNDLE=${BUNDLE:-.device/bundle}
HOST="$BUNDLE/host"
mkdir -p "$OUT"
S16=${S16:-wgmma,wgmma_w0_p_dp,wgmma_c2}
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
# Correctness of every schedule timed below at the edge shapes (and walking tiles with 3 blocks).
run check 30 "$HOST" sm90 --check --no-timing --schedules "$S16"
run 4096 40 "$HOST" sm90 --inputs bf16,fp16 --b n,k --rounds 7 --reps 20 --check-rows 2 \
    --schedules "$S16" 4096
run 8192 40 "$HOST" sm90 --inputs bf16,fp16 --b n,k --rounds 5 --reps 10 --check-rows 2 \
    --schedules "$S16" 8192
run tf32 35 "$HOST" sm90 --inputs tf32 --b n,k --rounds 5 --reps 10 --check-rows 2 \
    --schedules "$S32" 4096 8192
kill "$smi" 2>/dev/null
echo "total $(($(date +%s) - t0)) s, status $status" >> "$OUT/rounds.log"
exit $status
