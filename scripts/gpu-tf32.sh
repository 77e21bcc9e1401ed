#!/usr/bin/env bash
# Issue 21's f32 Hopper GEMM (TF32 and 3xTF32 on wgmma), run on the GPU machine from the
# repository root with the bundle of `cargo xtask gpu-bundle` (BUNDLE, default .device/bundle):
# every variant timed against cuBLAS of the same precision in the same process (TF32: cuBLAS
# CUBLAS_COMPUTE_32F_FAST_TF32; 3xTF32: cuBLAS FP32 and the project's FP32 SGEMM), each result
# checked against the f64 reference with the error distribution; the SM clock during the run.
#   scripts/gpu-tf32.sh [N…]   sizes (default 4096 8192); JSON to $OUT/tf32_*.json,
#                              log to $OUT/tf32.log, clock to $OUT/tf32_clock.csv
set -u
OUT=${OUT:-/tmp/out}
BUNDLE=${BUNDLE:-.device/bundle}
HOST="$BUNDLE/host"
mkdir -p "$OUT"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(4096 8192)
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv -lms 200 > "$OUT/tf32_clock.csv" 2>/dev/null &
smi=$!
status=0
run() {
    echo "+ $*" >> "$OUT/tf32.log"
    "$@" 2>>"$OUT/tf32.log" || status=1
}
# Accuracy at issue 21's test shape (K = 4096, checked in full): every 3xTF32 flush interval
# against FP32 SGEMM on the same inputs; TF32 in place (FLOAT32 and TFLOAT32 maps).
run "$HOST" matmul --m 256 --n 256 --k 4096 --precision 3xtf32 --reps 5 --verify full --json \
    --kernel wgmma_f1,wgmma_f2,wgmma_f4,wgmma_f16,tc_tf32x3_rr_s3 > "$OUT/tf32_acc_3x.json"
run "$HOST" matmul --m 256 --n 256 --k 4096 --precision tf32 --reps 5 --verify full --json \
    --trans-b --kernel wgmma_rn,wgmma_rz > "$OUT/tf32_acc_tf32.json"
# Most important first (a time limit may cut the tail): 3xTF32 and TF32 at each size, then TF32
# with B column-major (read in place: no split pass).
for n in "${sizes[@]}"; do
    run "$HOST" matmul "$n" --precision 3xtf32 --reps 10 --json \
        --kernel wgmma_f1,wgmma_f2,wgmma_f4 > "$OUT/tf32_3x_$n.json"
    run "$HOST" matmul "$n" --precision tf32 --reps 20 --json \
        --kernel wgmma_rn,wgmma_rz,tc_tf32_rr_s3 > "$OUT/tf32_tf32_$n.json"
done
for n in "${sizes[@]}"; do
    run "$HOST" matmul "$n" --precision tf32 --reps 20 --json --trans-b \
        --kernel wgmma_rn,wgmma_rz > "$OUT/tf32_tf32_bt_$n.json"
done
kill "$smi" 2>/dev/null
echo "SM clock (MHz) during the run: $(awk -F', ' 'NR>1{s+=$2; n++} END{if(n) printf "%.0f mean of %d samples", s/n, n}' "$OUT/tf32_clock.csv")" | tee -a "$OUT/tf32.log"
exit $status
