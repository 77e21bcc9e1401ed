#!/usr/bin/env bash
# Issue 20, session 6 (single problems: odd sizes, deep K, transposes): the route timings of
# the problems still below 90 % (tests/gpu_route_timing, every candidate route, the in-kernel
# split included), the committed suite and the problems outside it, through
# `host bench sgemm-shapes`. Called by `scripts/gpu-run.sh shapes-s6`; arguments: the bundle
# folder, the output folder and the outside-suite file. Writes route_timings.txt,
# sgemm_shapes.{txt,jsonl}, outside.{txt,jsonl} and clock.csv (SM clock every 200 ms). T_ROUTE,
# T_SUITE, T_OUT: seconds allowed to each part (default 300); ROUTE_TIMING_ONLY: the problems timed.
set -uo pipefail
B=$1
OUT_DIR=$2
OUTSIDE=${3:-docs/data/session6-2026-11-24/shapes/outside.txt}
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
smi=$!
ONLY="333x555x777 NN x1;256x256x16384 NN x1;128x128x16384 NN x1;512x512x16384 NN x1"
ONLY+=";1024x1024x16384 NN x1;384x384x12000 NN x1;768x640x8192 NN x1;2048x512x8192 NN x1"
ONLY+=";700x700x2000 NN x1;1000x777x1025 TN x1;1000x777x1025 NT x1;1000x777x1025 TT x1"
ONLY+=";4097x4095x1023 NN x1"
ROUTE_TIMING_ONLY=${ROUTE_TIMING_ONLY:-$ONLY} timeout "${T_ROUTE:-300}" "$B/tests/gpu_route_timing" --ignored --nocapture --test-threads 1 \
    > "$OUT_DIR/route_timings.txt" 2>&1 || { echo "FAILED: route timings"; status=1; }
grep -E '^(P|B) ' "$OUT_DIR/route_timings.txt"
timeout "${T_SUITE:-300}" "$B/host" bench -o "$OUT_DIR/sgemm_shapes.jsonl" sgemm-shapes > /dev/null 2> "$OUT_DIR/sgemm_shapes.txt" \
    || { echo "FAILED: sgemm-shapes"; status=1; }
cat "$OUT_DIR/sgemm_shapes.txt"
timeout "${T_OUT:-300}" "$B/host" bench -o "$OUT_DIR/outside.jsonl" sgemm-shapes --suite "$OUTSIDE" > /dev/null 2> "$OUT_DIR/outside.txt" \
    || { echo "FAILED: outside"; status=1; }
cat "$OUT_DIR/outside.txt"
kill "$smi"
awk -F', ' 'NR > 1 { gsub(/ MHz/, "", $2); s += $2; n++; if (min == "" || $2 < min) min = $2 }
            END { if (n) printf "SM clock: mean %.0f MHz, min %d MHz over %d samples\n", s / n, min, n }' "$OUT_DIR/clock.csv"
exit $status
