#!/usr/bin/env bash
# Issue 20, session 9 (helper "mid": the non-batched problems below 90 % of cuBLAS). Parts (PARTS,
# default "tests check suite outside"):
#   tests    the GPU tests of the session's rules (gpu_mid) and of the routes (gpu_route)
#   check    each session-9 rule against what ran before it (RGK_SGEMM_SCHEDULE=data-parallel,
#            RGK_SGEMM_ROUTE=b=T / direct), same problems, one process each -> check.txt
#   explore  each problem class under the routes and stream-K grids that compete for it
#            (RGK_SGEMM_ROUTE / RGK_SGEMM_WAVE_BLOCKS, one `host bench sgemm-shapes` process per
#            setting, cuBLAS's matching call in the same process, median of REPS) -> explore.txt
#   suite    the committed suite, SUITE_RUNS times in separate processes -> suite_N.{txt,jsonl}
#   outside  the outside lists (arguments) -> outside_N.{txt,jsonl}
#   gemv     1 x 4096 x 4096 (and 1 x 8192 x 8192) in GEMV_RUNS processes: variance and bandwidth
#            -> gemv.txt
# SM clock every 200 ms -> clock.csv. Arguments: the bundle folder, the output folder, the
# outside lists (default: session 8's and this session's).
# Called by `scripts/gpu-run.sh shapes-mid`.
set -uo pipefail
B=$1
OUT_DIR=$2
shift 2
[ $# -gt 0 ] || set -- docs/data/session8-2026-11-24/shapes/outside.txt host/data/mid/outside.txt
H="$B/host"
PARTS=${PARTS:-tests check suite outside}
REPS=${REPS:-20}
has() { [[ " $PARTS " == *" $1 "* ]]; }
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
smi=$!
# One bench process: label, environment assignment (or "-"), problem lines.
bench() {
    local label=$1 env=$2 list=$3 f
    # EXPLORE_UNTIL: seconds of the script after which the remaining settings are skipped.
    if [ "$SECONDS" -gt "${EXPLORE_UNTIL:-100000}" ]; then echo "== $label | $env: skipped (time)"; return; fi
    f=$(mktemp)
    printf '%b' "$list" > "$f"
    echo "== $label | $env"
    if [ "$env" = - ]; then
        timeout 30 "$H" bench sgemm-shapes --reps "$REPS" --suite "$f" 2>&1 >/dev/null | grep -E "^[0-9]" || echo "FAILED: $label"
    else
        env "$env" timeout 30 "$H" bench sgemm-shapes --reps "$REPS" --suite "$f" 2>&1 >/dev/null | grep -E "^[0-9]" || echo "FAILED: $label $env"
    fi
    rm -f "$f"
}
if has explore; then
    {
        # The transposes: the default, then each pre-pass into the tuned N,N layout with segments.
        for r in - RGK_SGEMM_ROUTE=b=T,tile=3,flagship=2 RGK_SGEMM_ROUTE=b=T,tile=2,flagship=2 RGK_SGEMM_ROUTE=b=T,tile=3,splits=2 RGK_SGEMM_ROUTE=b=T,tile=3,flagship=3; do
            bench nt "$r" '1000 777 1025 NT 1\n900 800 1100 NT 1\n'
        done
        for r in - RGK_SGEMM_ROUTE=a=T,b=R,tile=3,flagship=2 RGK_SGEMM_ROUTE=a=T,b=R,tile=2,flagship=2 RGK_SGEMM_ROUTE=a=T,b=R RGK_SGEMM_ROUTE=b=R,tile=3,splits=2; do
            bench tn "$r" '1000 777 1025 TN 1\n'
        done
        for r in - RGK_SGEMM_ROUTE=a=T,b=T,tile=3,flagship=2 RGK_SGEMM_ROUTE=a=T,b=T,tile=2,flagship=2 RGK_SGEMM_ROUTE=a=T,b=T RGK_SGEMM_ROUTE=b=T,tile=3,splits=2; do
            bench tt "$r" '1000 777 1025 TT 1\n900 800 1100 TT 1\n'
        done
        for r in - RGK_SGEMM_ROUTE=b=R,tile=3,flagship=2 RGK_SGEMM_ROUTE=b=R,tile=2,flagship=2; do
            bench nn_u "$r" '1000 777 1025 NN 1\n'
        done
        # Thin, deep K, one wave of 64x128 tiles (M = 64): direct against two segments per tile.
        P='64 16384 4096 NN 1\n'
        for r in - RGK_SGEMM_ROUTE=tile=2,flagship=2 RGK_SGEMM_ROUTE=tile=2,splits=2 RGK_SGEMM_ROUTE=tile=3,flagship=2 RGK_SGEMM_ROUTE=tile=2,flagship=3; do
            bench thin "$r" "$P"
        done
        # Mid-size N,N problems with B aligned: the default grid against segments on 64x64 / 64x128.
        P='900 800 1100 NN 1\n1000 780 1025 NN 1\n1000 1000 1000 NN 1\n1024 1024 1024 NN 1\n'
        for r in - RGK_SGEMM_ROUTE=tile=3,flagship=2 RGK_SGEMM_ROUTE=tile=2,flagship=2 RGK_SGEMM_ROUTE=tile=3,splits=2 RGK_SGEMM_ROUTE=tile=3,flagship=3; do
            bench nn "$r" "$P"
        done
        # Small odd problems: one-wave stream-K with 1, 2 or 3 blocks per SM.
        for r in - RGK_SGEMM_WAVE_BLOCKS=2 RGK_SGEMM_WAVE_BLOCKS=3; do
            bench small "$r" '333 555 777 NN 1\n300 600 700 NN 1\n333 777 555 NN 1\n'
        done
        # 4097 x 4095 x 1023 (B unaligned): direct against B re-pitched.
        for r in - RGK_SGEMM_ROUTE=b=R; do
            bench odd "$r" '4097 4095 1023 NN 1\n'
        done
        # Deep K outside the suite.
        for r in - RGK_SGEMM_ROUTE=tile=2,splits=16 RGK_SGEMM_ROUTE=tile=1,splits=24 RGK_SGEMM_ROUTE=tile=3,splits=16; do
            bench deep320 "$r" '320 320 12000 NN 1\n'
        done
        for r in - RGK_SGEMM_ROUTE=tile=1,splits=6 RGK_SGEMM_ROUTE=tile=1,splits=8 RGK_SGEMM_ROUTE=tile=1,flagship=4 RGK_SGEMM_ROUTE=tile=1,flagship=7 RGK_SGEMM_ROUTE=tile=2,flagship=3 RGK_SGEMM_ROUTE=tile=0,flagship=7; do
            bench deep768 "$r" '768 768 10000 NN 1\n'
        done
    } > "$OUT_DIR/explore.txt" 2>&1
    cat "$OUT_DIR/explore.txt"
fi
if has tests; then
    for t in gpu_mid gpu_route; do
        [ -x "$B/tests/$t" ] || continue
        timeout "${T_TEST:-40}" "$B/tests/$t" --test-threads 1 >> "$OUT_DIR/tests.log" 2>&1 \
            || { echo "FAILED: $t"; status=1; }
    done
    grep -E "^test |test result" "$OUT_DIR/tests.log"
fi
if has check; then
    # Session 9's rules against what ran before them, one process each, same problems:
    # the default, then the old grid (data-parallel) or the old route.
    {
        for r in - RGK_SGEMM_SCHEDULE=data-parallel; do
            bench uneven "$r" '1000 777 1025 NN 1\n1000 777 1025 NT 1\n1000 777 1025 TN 1\n1200 700 900 NN 1\n1200 700 900 NT 1\n'
        done
        for r in - RGK_SGEMM_ROUTE=b=T; do
            bench tt "$r" '1000 777 1025 TT 1\n'
        done
        for r in - RGK_SGEMM_ROUTE=direct; do
            bench route "$r" '4097 4095 1023 NN 1\n64 16384 4096 NN 1\n5000 4001 999 NN 1\n'
        done
    } > "$OUT_DIR/check.txt" 2>&1
    cat "$OUT_DIR/check.txt"
fi
if has gemv; then
    for i in $(seq "${GEMV_RUNS:-3}"); do
        bench "gemv $i" - '1 4096 4096 NN 1\n1 8192 8192 NN 1\n4096 1 4096 NN 1\n'
    done > "$OUT_DIR/gemv.txt" 2>&1
    cat "$OUT_DIR/gemv.txt"
fi
if has suite; then
    for i in $(seq "${SUITE_RUNS:-2}"); do
        timeout "${T_SUITE:-90}" "$H" bench -o "$OUT_DIR/suite_$i.jsonl" sgemm-shapes > /dev/null 2> "$OUT_DIR/suite_$i.txt" \
            || { echo "FAILED: sgemm-shapes $i"; status=1; }
        grep -E "geometric" "$OUT_DIR/suite_$i.txt"
    done
fi
if has outside; then
    i=0
    for f in "$@"; do
        i=$((i + 1))
        timeout "${T_OUT:-40}" "$H" bench -o "$OUT_DIR/outside_$i.jsonl" sgemm-shapes --suite "$f" > /dev/null 2> "$OUT_DIR/outside_$i.txt" \
            || { echo "FAILED: outside $f"; status=1; }
        grep -E "geometric" "$OUT_DIR/outside_$i.txt"
    done
fi
kill "$smi"
awk -F', ' 'NR > 1 { gsub(/ MHz/, "", $2); v = $2 + 0; s += v; n++; if (min == "" || v < min) min = v }
            END { if (n) printf "SM clock: mean %.0f MHz, min %d MHz over %d samples\n", s / n, min, n }' "$OUT_DIR/clock.csv"
exit $status
