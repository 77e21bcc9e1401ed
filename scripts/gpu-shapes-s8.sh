#!/usr/bin/env bash
# Issue 20, session 8 (the tuned flagship with a batch index, FLAGSHIP_BATCHED, for N,N batches
# and split-K): its GPU tests, the variant and the batched flagship side by side on the N,N
# batches (`host matmul --kernel A,B --batch N`, cuBLAS in the same process), the deep-K
# problems with the variants (RGK_SGEMM_TUNED_BATCH=0: the old model and kernels) and with
# the batched flagship, the committed suite and the problems outside it through
# `host bench sgemm-shapes`, then (PARTS with "sanitize") compute-sanitizer on two of the new
# kernels.
# Called by `scripts/gpu-run.sh shapes-s8`; arguments: the bundle folder, the output folder,
# the outside-suite files (default: session 8's list). Writes tests.log, candidates.txt,
# deepk_{variant,tuned}.{txt,jsonl}, sgemm_shapes.{txt,jsonl}, outside_N.{txt,jsonl},
# tile_{2,default}.txt (part "tiles": batches on the 64x128 tile against the default),
# sanitize.log and clock.csv (SM clock every 200 ms). PARTS (default "tests candidates suite
# deepk outside tiles"; add "sanitize") picks what runs; T_SUITE, T_OUT: seconds allowed to
# the suite and to each outside list (default 80, 40).
set -uo pipefail
B=$1
OUT_DIR=$2
shift 2
[ $# -gt 0 ] || set -- docs/data/session8-2026-11-24/shapes/outside.txt
H="$B/host"
PARTS=${PARTS:-tests candidates suite deepk outside tiles}
has() { [[ " $PARTS " == *" $1 "* ]]; }
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
smi=$!
if has tests; then
    for t in gpu_flagship_batched gpu_blas; do
        [ -x "$B/tests/$t" ] || continue
        timeout 60 "$B/tests/$t" --test-threads 1 >> "$OUT_DIR/tests.log" 2>&1 \
            || { echo "FAILED: $t"; status=1; }
    done
    grep -E "^test |test result" "$OUT_DIR/tests.log"
fi
if has candidates; then
    {
        for c in "256 256 256 512 sgemm_nn_128x256x8_s4_8x16,sgemm_nn_128x256x8_s4_8x16_fl" \
                 "512 512 512 128 sgemm_nn_128x256x8_s4_8x16,sgemm_nn_128x256x8_s4_8x16_fl" \
                 "128 128 128 1024 sgemm_nn_128x128x8_s4_16x8,sgemm_nn_128x128x8_s4_16x8_fl" \
                 "64 64 64 4096 sgemm_nn_64x64x16_s4_8x4,sgemm_nn_64x64x16_s4_8x4_fl" \
                 "192 192 192 384 sgemm_nn_64x128x16_s3_8x8,sgemm_nn_64x128x16_s3_8x8_fl"; do
            read -r m n k batch ks <<< "$c"
            timeout 30 "$H" matmul --m "$m" --n "$n" --k "$k" --batch "$batch" --kernel "$ks" --reps 20 --verify sample 2>&1 \
                || echo "FAILED: candidates $c"
        done
    } > "$OUT_DIR/candidates.txt"
    cat "$OUT_DIR/candidates.txt"
fi
if has suite; then
    timeout "${T_SUITE:-80}" "$H" bench -o "$OUT_DIR/sgemm_shapes.jsonl" sgemm-shapes > /dev/null 2> "$OUT_DIR/sgemm_shapes.txt" \
        || { echo "FAILED: sgemm-shapes"; status=1; }
    cat "$OUT_DIR/sgemm_shapes.txt"
fi
if has deepk; then
    # The suite's deep-K problems and session 8's outside ones: old kernels and model, then new.
    grep -hE '^(128 128 16384|256 256 16384|512 512 16384|1024 1024 16384|384 384 12288|320 320 12000|768 768 10000) ' \
        host/data/sgemm-shapes.txt "$@" > "$OUT_DIR/deepk_list.txt"
    for v in variant tuned; do
        echo "== deep K, $v"
        if [ "$v" = variant ]; then export RGK_SGEMM_TUNED_BATCH=0; else unset RGK_SGEMM_TUNED_BATCH; fi
        timeout 40 "$H" bench -o "$OUT_DIR/deepk_$v.jsonl" sgemm-shapes --suite "$OUT_DIR/deepk_list.txt" > /dev/null 2> "$OUT_DIR/deepk_$v.txt" \
            || { echo "FAILED: deep K $v"; status=1; }
        cat "$OUT_DIR/deepk_$v.txt"
    done
    unset RGK_SGEMM_TUNED_BATCH
fi
if has outside; then
    i=0
    for f in "$@"; do
        i=$((i + 1))
        echo "== outside $i: $f"
        timeout "${T_OUT:-40}" "$H" bench -o "$OUT_DIR/outside_$i.jsonl" sgemm-shapes --suite "$f" > /dev/null 2> "$OUT_DIR/outside_$i.txt" \
            || { echo "FAILED: outside $f"; status=1; }
        cat "$OUT_DIR/outside_$i.txt"
    done
fi
if has tiles; then
    # Batches whose 64x128 tile pads a ninth or more: that tile (RGK_SGEMM_OPS_TILE=2, the rule
    # before session 8's call 2) against the default (64x64).
    printf '192 192 192 NN 384\n192 192 192 NT 384\n320 320 320 NN 256\n200 200 200 NN 600\n' > "$OUT_DIR/tile_list.txt"
    for v in 2 default; do
        echo "== batches, tile $v"
        if [ "$v" = default ]; then unset RGK_SGEMM_OPS_TILE; else export RGK_SGEMM_OPS_TILE=$v; fi
        timeout 30 "$H" bench -o "$OUT_DIR/tile_$v.jsonl" sgemm-shapes --suite "$OUT_DIR/tile_list.txt" > /dev/null 2> "$OUT_DIR/tile_$v.txt" \
            || { echo "FAILED: tile $v"; status=1; }
        cat "$OUT_DIR/tile_$v.txt"
    done
    unset RGK_SGEMM_OPS_TILE
fi
kill "$smi"
awk -F', ' 'NR > 1 { gsub(/ MHz/, "", $2); v = $2 + 0; s += v; n++; if (min == "" || v < min) min = v }
            END { if (n) printf "SM clock: mean %.0f MHz, min %d MHz over %d samples\n", s / n, min, n }' "$OUT_DIR/clock.csv"
# compute-sanitizer on two batched flagship kernels: the largest tile at an aligned batch, the
# smallest at an odd one.
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
if has sanitize && command -v "$CS" > /dev/null; then
    for tool in memcheck racecheck; do
        for ks in "sgemm_nn_128x256x8_s4_8x16_fl --m 256 --n 256 --k 64 --batch 3" \
                  "sgemm_nn_64x64x16_s4_8x4_fl --m 67 --n 132 --k 37 --batch 2"; do
            read -r k shape <<< "$ks"
            {
                echo "== $tool $k $shape" >> "$OUT_DIR/sanitize.log"
                # shellcheck disable=SC2086
                timeout 40 "$CS" --tool "$tool" --error-exitcode 9 "$H" matmul $shape --kernel "$k" --reps 1 --no-cublas \
                    >> "$OUT_DIR/sanitize.log" 2>&1 || { echo "FAILED: $tool $k $shape"; status=1; }
            }
        done
    done
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT_DIR/sanitize.log"
fi
exit $status
