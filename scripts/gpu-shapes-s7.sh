#!/usr/bin/env bash
# Issue 20, session 7 (the pipelined row kernels for N up to 32, the 16-way split reduction):
# the skinny GPU tests, the old and new row kernels side by side on three problems
# (`host matmul --kernel A,B`, cuBLAS in the same process), the committed suite and the
# problems outside it through `host bench sgemm-shapes`, then compute-sanitizer on the new
# kernels. Called by `scripts/gpu-run.sh shapes-s7`; arguments: the bundle folder, the output
# folder, the outside-suite files (default: session 7's, session 6's and the skinny list).
# Writes tests.log, candidates.txt, sgemm_shapes.{txt,jsonl}, outside_N.{txt,jsonl},
# sanitize.log and clock.csv (SM clock every 200 ms). T_SUITE, T_OUT: seconds allowed to the
# suite and to each outside list (default 100, 60).
set -uo pipefail
B=$1
OUT_DIR=$2
shift 2
[ $# -gt 0 ] || set -- docs/data/session7-2026-11-24/shapes/outside.txt \
    docs/data/session6-2026-11-24/shapes/outside.txt host/data/sgemm-shapes-skinny.txt
H="$B/host"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
smi=$!
timeout 60 "$B/tests/gpu_skinny" --test-threads 1 > "$OUT_DIR/tests.log" 2>&1 || { echo "FAILED: gpu_skinny"; status=1; }
grep -E "^test |test result" "$OUT_DIR/tests.log"
{
    for c in "8192 16 8192 sgemm_rows_n16,sgemm_rows_async_n16" \
             "8192 32 8192 sgemm_64x64x16_s4_8x4,sgemm_rows_async_n32" \
             "8192 8 8192 sgemm_rows_n8,sgemm_rows_async_n8"; do
        read -r m n k ks <<< "$c"
        timeout 30 "$H" matmul --m "$m" --n "$n" --k "$k" --kernel "$ks" --reps 30 --verify sample 2>&1 \
            || echo "FAILED: candidates $c"
    done
} > "$OUT_DIR/candidates.txt"
cat "$OUT_DIR/candidates.txt"
timeout "${T_SUITE:-100}" "$H" bench -o "$OUT_DIR/sgemm_shapes.jsonl" sgemm-shapes > /dev/null 2> "$OUT_DIR/sgemm_shapes.txt" \
    || { echo "FAILED: sgemm-shapes"; status=1; }
cat "$OUT_DIR/sgemm_shapes.txt"
i=0
for f in "$@"; do
    i=$((i + 1))
    echo "== outside $i: $f"
    timeout "${T_OUT:-60}" "$H" bench -o "$OUT_DIR/outside_$i.jsonl" sgemm-shapes --suite "$f" > /dev/null 2> "$OUT_DIR/outside_$i.txt" \
        || { echo "FAILED: outside $f"; status=1; }
    cat "$OUT_DIR/outside_$i.txt"
done
kill "$smi"
awk -F', ' 'NR > 1 { gsub(/ MHz/, "", $2); v = $2 + 0; s += v; n++; if (min == "" || v < min) min = v }
            END { if (n) printf "SM clock: mean %.0f MHz, min %d MHz over %d samples\n", s / n, min, n }' "$OUT_DIR/clock.csv"
# compute-sanitizer on the pipelined row kernels: split (K = 4099), odd and aligned shapes.
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
if command -v "$CS" > /dev/null; then
    for tool in memcheck racecheck; do
        for k in sgemm_rows_async_n16 sgemm_rows_async_n32; do
            for shape in "--m 33 --n 17 --k 4099" "--m 256 --n 16 --k 256"; do
                echo "== $tool $k $shape" >> "$OUT_DIR/sanitize.log"
                # shellcheck disable=SC2086
                timeout 40 "$CS" --tool "$tool" --error-exitcode 9 "$H" matmul $shape --kernel "$k" --reps 1 --no-cublas \
                    >> "$OUT_DIR/sanitize.log" 2>&1 || { echo "FAILED: $tool $k $shape"; status=1; }
            done
        done
    done
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT_DIR/sanitize.log"
else
    echo "no compute-sanitizer on this machine"
fi
exit $status
