#!/usr/bin/env bash
# Issue 20, the SGEMM routes (pre-pass, split-K; docs/matmul.md "Routes"): the route model's
# timings (tests/gpu_route_timing, ignored by default: cuBLAS, the direct route, the model's pick
# and every candidate route per problem, with the model's estimates), then the routes' GPU tests
# (tests/gpu_route). Called by `scripts/gpu-run.sh shapes-route`; arguments: the bundle folder and
# the output folder. Writes $OUT_DIR/route_timings.txt, $OUT_DIR/route_tests.log and the SM clock
# every 200 ms to $OUT_DIR/route_clock.csv.
set -uo pipefail
B=$1
OUT_DIR=$2
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/route_clock.csv" &
smi=$!
"$B/tests/gpu_route_timing" --ignored --nocapture --test-threads 1 > "$OUT_DIR/route_timings.txt" 2>&1 \
    || { echo "FAILED: route timings"; status=1; }
grep -E '^(P|B) ' "$OUT_DIR/route_timings.txt"
"$B/tests/gpu_route" --test-threads 1 > "$OUT_DIR/route_tests.log" 2>&1 \
    || { echo "FAILED: route tests"; status=1; }
grep -E '^test |test result' "$OUT_DIR/route_tests.log"
kill "$smi"
bash scripts/clock-summary.sh "$OUT_DIR/route_clock.csv"
exit $status
