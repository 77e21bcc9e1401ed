#!/usr/bin/env bash
# Issue 20, session 10 (helper "gemv": matrix–vector products and small odd problems). Parts
# (PARTS, default "candidates smallcand splits tests sanitize small", run in this order:
# candidates smallcand splits suite outside tests sanitize small):
#   tests       host/tests/gpu_skinny (every skinny kernel, the matrix–vector ones included,
#               against the f64 reference; split sums bit-identical run to run) and gpu_sgemm
#               (every flagship kernel, the 8-warp 64x64 ones included) -> tests.log
#   candidates  the old column kernel and the one-launch matrix–vector kernels side by side
#               (`host matmul --kernel A,B,C`, cuBLAS's matching call in the same process, median
#               of REPS) on the M = 1 problems, CAND_RUNS processes each -> candidates.txt
#   smallcand   the 64x64 tile with 8 warps (4x4 outputs each) against the 4-warp 64x64 and the
#               64x128 tiles on the small odd problems (`host matmul --kernel`), default grid and
#               RGK_SGEMM_WAVE_BLOCKS=2/3 (SMALL_WAVES), one process each; SMALL_SHAPES: other
#               problems ("M N K SUFFIX;…", SUFFIX _u for B unaligned or -) -> smallcand.txt
#   splits      the library's choice on the matrix–vector problems and their N = 1 twins, the
#               default split against RGK_SGEMV_SPLITS=8/32, one process each -> splits.txt
#   small       the small odd problems under the default and the competing existing routes
#               (RGK_SGEMM_ROUTE, RGK_SGEMM_SCHEDULE), one process per setting -> small.txt
#   sanitize    compute-sanitizer memcheck and racecheck on both new kernels, an aligned and an
#               odd shape, K split (the in-kernel fix-up) -> sanitize.log
#   suite       the committed suite, SUITE_RUNS processes -> suite_N.{txt,jsonl}
#   outside     the outside lists (arguments; default host/data/gemv/outside.txt and session 9's
#               mid list) -> outside_N.{txt,jsonl}
# SM clock every 200 ms -> clock.csv, its summary printed. Arguments: the bundle folder, the
# output folder, the outside lists. Called by `scripts/gpu-run.sh shapes-gemv`.
set -uo pipefail
B=$1
OUT_DIR=$2
shift 2
[ $# -gt 0 ] || set -- host/data/gemv/outside.txt host/data/mid/outside.txt
H="$B/host"
LISTS=("$@")
# UNTIL: seconds of the script after which the remaining parts are skipped (reported).
late() { if [ "$SECONDS" -gt "${UNTIL:-100000}" ]; then echo "skipped (time): $1"; return 1; fi; }
PARTS=${PARTS:-candidates smallcand splits tests sanitize small}
REPS=${REPS:-20}
has() { [[ " $PARTS " == *" $1 "* ]]; }
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
smi=$!
# One bench process: label, environment assignment (or "-"), problem lines.
bench() {
    local label=$1 env=$2 list=$3 f
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
if has candidates; then
    K=sgemm_cols_m1,sgemv_strips_u8,sgemv_strips_u4
    for i in $(seq "${CAND_RUNS:-3}"); do
        for s in "1 4096 4096" "1 6000 3000" "1 3000 5000" "1 8192 8192" "1 2048 2048"; do
            read -r m n k <<< "$s"
            echo "== run $i: $m x $n x $k"
            timeout 30 "$H" matmul --m "$m" --n "$n" --k "$k" --kernel "$K" --reps "$REPS" --verify sample 2>&1 \
                || echo "FAILED: candidates $s"
        done
    done > "$OUT_DIR/candidates.txt" 2>&1
    cat "$OUT_DIR/candidates.txt"
fi
if has smallcand && late smallcand; then
    # The 8-warp 64x64 tile (4x4 outputs per thread) against the 4-warp one (8x4), the
    # library's launch (one-wave stream-K where it plans it), one process per grid setting.
    IFS=';' read -r -a shapes <<< "${SMALL_SHAPES:-333 555 777 _u;333 777 555 _u;300 600 700 -;350 500 800 -}"
    for env in ${SMALL_WAVES:-- RGK_SGEMM_WAVE_BLOCKS=2 RGK_SGEMM_WAVE_BLOCKS=3}; do
        for s in "${shapes[@]}"; do
            read -r m n k u <<< "$s"
            [ "$u" = - ] && u=
            echo "== $env: $m x $n x $k"
            if [ "$env" = - ]; then set --; else set -- env "$env"; fi
            timeout 30 "$@" "$H" matmul --m "$m" --n "$n" --k "$k" --reps "$REPS" --verify sample \
                --kernel "sgemm_64x64x16_s4_8x4$u,sgemm_64x64x16_s4_4x4$u,sgemm_64x128x16_s3_8x8$u" 2>&1 \
                || echo "FAILED: smallcand $s $env"
        done
    done > "$OUT_DIR/smallcand.txt" 2>&1
    cat "$OUT_DIR/smallcand.txt"
fi
if has splits && late splits; then
    P='1 4096 4096 NN 1\n1 6000 3000 NN 1\n1 3000 5000 NN 1\n1 8192 8192 NN 1\n4096 1 4096 NN 1\n6000 1 3000 NN 1\n3000 1 5000 NN 1\n8192 1 8192 NN 1\n'
    for r in - RGK_SGEMV_SPLITS=8 RGK_SGEMV_SPLITS=32 -; do
        bench gemv "$r" "$P"
    done > "$OUT_DIR/splits.txt" 2>&1
    cat "$OUT_DIR/splits.txt"
fi
if has suite && late suite; then
    for i in $(seq "${SUITE_RUNS:-1}"); do
        timeout "${T_SUITE:-90}" "$H" bench -o "$OUT_DIR/suite_$i.jsonl" sgemm-shapes > /dev/null 2> "$OUT_DIR/suite_$i.txt" \
            || { echo "FAILED: sgemm-shapes $i"; status=1; }
        grep -E "geometric" "$OUT_DIR/suite_$i.txt"
    done
fi
if has outside && late outside; then
    i=0
    for f in "${LISTS[@]}"; do
        i=$((i + 1))
        timeout "${T_OUT:-40}" "$H" bench -o "$OUT_DIR/outside_$i.jsonl" sgemm-shapes --suite "$f" > /dev/null 2> "$OUT_DIR/outside_$i.txt" \
            || { echo "FAILED: outside $f"; status=1; }
        grep -E "geometric" "$OUT_DIR/outside_$i.txt"
    done
fi
if has tests && late tests; then
    for t in gpu_skinny gpu_sgemm; do
        [ -x "$B/tests/$t" ] || { echo "FAILED: no $t in the bundle"; status=1; continue; }
        timeout "${T_TEST:-60}" "$B/tests/$t" --test-threads 1 >> "$OUT_DIR/tests.log" 2>&1 \
            || { echo "FAILED: $t"; status=1; }
    done
    grep -E "^test |test result" "$OUT_DIR/tests.log"
fi
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
if has sanitize && late sanitize; then
    if command -v "$CS" > /dev/null; then
        for tool in memcheck racecheck; do
            for ks in "sgemv_strips_u8 --m 1 --n 1024 --k 2048" "sgemv_strips_u8 --m 3 --n 999 --k 1001" \
                      "sgemv_strips_u4 --m 1 --n 1024 --k 2048" "sgemv_strips_u4 --m 1 --n 333 --k 4097" \
                      "sgemm_64x64x16_s4_4x4 --m 256 --n 256 --k 64" "sgemm_64x64x16_s4_4x4_u --m 333 --n 555 --k 77"; do
                read -r k shape <<< "$ks"
                echo "== $tool $k $shape" >> "$OUT_DIR/sanitize.log"
                timeout 40 "$CS" --tool "$tool" --error-exitcode 9 "$H" matmul $shape --kernel "$k" --reps 1 --no-cublas \
                    >> "$OUT_DIR/sanitize.log" 2>&1 || { echo "FAILED: $tool $k $shape"; status=1; }
            done
        done
        grep -E "^==|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT_DIR/sanitize.log"
    else
        echo "FAILED: no $CS"; status=1
    fi
fi
if has small && late small; then
    P='333 555 777 NN 1\n300 600 700 NN 1\n350 500 800 NN 1\n333 777 555 NN 1\n'
    for r in - RGK_SGEMM_ROUTE=b=R RGK_SGEMM_ROUTE=tile=3,flagship=2 RGK_SGEMM_SCHEDULE=data-parallel; do
        bench small "$r" "$P"
    done > "$OUT_DIR/small.txt" 2>&1
    cat "$OUT_DIR/small.txt"
fi
kill "$smi"
awk -F', ' 'NR > 1 { gsub(/ MHz/, "", $2); v = $2 + 0; s += v; n++; if (min == "" || v < min) min = v }
            END { if (n) printf "SM clock: mean %.0f MHz, min %d MHz over %d samples\n", s / n, min, n }' "$OUT_DIR/clock.csv"
exit $status
