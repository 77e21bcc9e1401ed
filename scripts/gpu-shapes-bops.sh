#!/usr/bin/env bash
# Issue 20, session 9, helper "bops": the batched flagship with transposed operations
# (FLAGSHIP_BATCHED's T,N / N,T / T,T rows, `sgemm_{tn,nt,tt}_<tile>_fl`). Parts (PARTS, default
# "candidates suite outside sanitize tests"; "full" adds the whole suite):
#   candidates  the variant (flagship_ops) and the batched flagship side by side on the batches
#               with a transposed operand (`host matmul --kernel A,B,… --batch N`, cuBLAS's
#               cublasSgemmStridedBatched with the same operations in the same process, median
#               of 20) -> candidates.txt
#   suite       the committed suite's batched rows (all operation pairs) -> suite_batched.{txt,jsonl}
#   full        the whole committed suite -> sgemm_shapes.{txt,jsonl}
#   outside     session 8's outside list's batched rows and this helper's own list
#               (docs/data/session9-2026-11-24/bops/outside_bops.txt) -> outside_{s8,bops}.{txt,jsonl}
#   sanitize    compute-sanitizer memcheck and racecheck on two new kernels, an aligned and an
#               odd shape -> sanitize.log
#   tests       host/tests/gpu_flagship_batched (every FLAGSHIP_BATCHED kernel against the f64
#               reference) -> tests.log
# SM clock every 200 ms in clock.csv, its summary printed. Called by
# `scripts/gpu-run.sh shapes-bops`; arguments: the bundle folder, the output folder.
set -uo pipefail
B=$1
OUT_DIR=$2
H="$B/host"
PARTS=${PARTS:-candidates suite outside sanitize tests}
has() { [[ " $PARTS " == *" $1 "* ]]; }
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
smi=$!
flags() { # OPS -> --trans-a/--trans-b
    case $1 in TN) echo "--trans-a" ;; NT) echo "--trans-b" ;; TT) echo "--trans-a --trans-b" ;; *) echo "" ;; esac
}
if has candidates; then
    {
        # m n k batch ops tiles (the variant first, then the batched flagship's tiles)
        for c in "256 256 256 512 NT nt_128x256x8_s4_8x16_u nt_128x256x8_s4_8x16_fl nt_128x128x8_s4_16x8_fl" \
                 "256 256 256 512 TT tt_128x256x8_s4_8x16 tt_128x256x8_s4_8x16_fl tt_128x128x8_s4_16x8_fl" \
                 "256 256 256 512 TN tn_128x256x8_s4_8x16 tn_128x256x8_s4_8x16_fl" \
                 "256 256 256 512 NN nn_128x256x8_s4_8x16_fl" \
                 "192 192 192 384 NT nt_64x64x16_s4_8x4_u nt_64x64x16_s4_8x4_fl nt_64x128x16_s3_8x8_fl" \
                 "192 192 192 384 TT tt_64x64x16_s4_8x4 tt_64x64x16_s4_8x4_fl tt_64x128x16_s3_8x8_fl" \
                 "192 192 192 384 NN nn_64x64x16_s4_8x4_fl" \
                 "320 320 320 256 TT tt_64x64x16_s4_8x4 tt_64x64x16_s4_8x4_fl tt_64x128x16_s3_8x8_fl" \
                 "320 320 320 256 NT nt_64x64x16_s4_8x4_u nt_64x64x16_s4_8x4_fl" \
                 "320 320 320 256 NN nn_64x64x16_s4_8x4_fl" \
                 "256 256 256 512 TN tn_128x256x8_s4_8x16_fl tn_128x128x8_s4_16x8_fl" \
                 "200 200 200 600 NT nt_64x128x16_s3_8x8_fl nt_64x64x16_s4_8x4_fl" \
                 "200 200 200 600 NN nn_64x128x16_s3_8x8_fl nn_64x64x16_s4_8x4_fl" \
                 "384 384 384 100 TT tt_128x128x8_s4_16x8_fl tt_64x128x16_s3_8x8_fl tt_64x64x16_s4_8x4_fl" \
                 "384 384 384 100 NT nt_128x128x8_s4_16x8_fl nt_64x64x16_s4_8x4_fl"; do
            read -r m n k batch ops ks <<< "$c"
            names=$(for x in $ks; do printf 'sgemm_%s,' "$x"; done)
            # shellcheck disable=SC2046
            timeout 30 "$H" matmul --m "$m" --n "$n" --k "$k" --batch "$batch" $(flags "$ops") \
                --kernel "${names%,}" --reps 20 --verify sample 2>&1 || echo "FAILED: candidates $c"
        done
    } > "$OUT_DIR/candidates.txt"
    cat "$OUT_DIR/candidates.txt"
fi
if has suite; then
    grep -v '^#' host/data/sgemm-shapes.txt | awk 'NF == 5 && $5 > 1' > "$OUT_DIR/suite_batched_list.txt"
    timeout 40 "$H" bench -o "$OUT_DIR/suite_batched.jsonl" sgemm-shapes --suite "$OUT_DIR/suite_batched_list.txt" \
        > /dev/null 2> "$OUT_DIR/suite_batched.txt" || { echo "FAILED: suite"; status=1; }
    cat "$OUT_DIR/suite_batched.txt"
fi
if has full; then
    # The whole committed suite (every class), for regressions outside the batches.
    timeout "${T_SUITE:-80}" "$H" bench -o "$OUT_DIR/sgemm_shapes.jsonl" sgemm-shapes > /dev/null 2> "$OUT_DIR/sgemm_shapes.txt" \
        || { echo "FAILED: sgemm-shapes"; status=1; }
    cat "$OUT_DIR/sgemm_shapes.txt"
fi
if has outside; then
    grep -v '^#' docs/data/session8-2026-11-24/shapes/outside.txt | awk 'NF == 5 && $5 > 1' > "$OUT_DIR/outside_s8_list.txt"
    for f in s8 bops; do
        list="$OUT_DIR/outside_s8_list.txt"
        [ "$f" = bops ] && list=${BOPS_LIST:-docs/data/session9-2026-11-24/bops/outside_bops.txt}
        echo "== outside $f: $list"
        timeout 40 "$H" bench -o "$OUT_DIR/outside_$f.jsonl" sgemm-shapes --suite "$list" \
            > /dev/null 2> "$OUT_DIR/outside_$f.txt" || { echo "FAILED: outside $f"; status=1; }
        cat "$OUT_DIR/outside_$f.txt"
    done
fi
kill "$smi"
awk -F', ' 'NR > 1 { gsub(/ MHz/, "", $2); v = $2 + 0; s += v; n++; if (min == "" || v < min) min = v }
            END { if (n) printf "SM clock: mean %.0f MHz, min %d MHz over %d samples\n", s / n, min, n }' "$OUT_DIR/clock.csv"
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
if has sanitize && command -v "$CS" > /dev/null; then
    for tool in memcheck racecheck; do
        for ks in "sgemm_nt_128x256x8_s4_8x16_fl --m 256 --n 256 --k 64 --batch 3 --trans-b" \
                  "sgemm_tt_64x64x16_s4_8x4_fl --m 68 --n 133 --k 37 --batch 2 --trans-a --trans-b"; do
            read -r k shape <<< "$ks"
            echo "== $tool $k $shape" >> "$OUT_DIR/sanitize.log"
            # shellcheck disable=SC2086
            timeout 40 "$CS" --tool "$tool" --error-exitcode 9 "$H" matmul $shape --kernel "$k" --reps 1 --no-cublas \
                >> "$OUT_DIR/sanitize.log" 2>&1 || { echo "FAILED: $tool $k $shape"; status=1; }
        done
    done
    grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY" "$OUT_DIR/sanitize.log"
fi
if has tests && [ -x "$B/tests/gpu_flagship_batched" ]; then
    timeout "${T_TESTS:-60}" "$B/tests/gpu_flagship_batched" --test-threads 1 > "$OUT_DIR/tests.log" 2>&1 \
        || { echo "FAILED: gpu_flagship_batched"; status=1; }
    grep -E "^test |test result|panicked" "$OUT_DIR/tests.log"
fi
exit $status
