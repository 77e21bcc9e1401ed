#!/usr/bin/env bash
# Issue 21's Hopper GEMM ladder (docs/sm90.md), run on the GPU machine from the repository root
# with the bundle of `cargo xtask gpu-bundle` (BUNDLE, default .device/bundle): every schedule of
# the 16-bit and TF32 kernels (wait depth w0/w1, a block per tile `np` or persistent `p`, tile
# group g<N>, stream-K sk/sk<W>) timed against cuBLAS of the same precision in the same
# process, after the edge shapes on every schedule and the GPU tests of gpu_sm90 (when the
# bundle has them); then Nsight Compute on the default BF16 kernel at 4096 (when `ncu`
# is there). Most important first: a time limit may cut the tail.
#   scripts/gpu-wgmma.sh [N…]   sizes (default 4096 8192); JSON to $OUT/wgmma_*.json, log to
#                               $OUT/wgmma.log, SM clock to $OUT/wgmma_clock.csv
set -u
OUT=${OUT:-/tmp/out}
BUNDLE=${BUNDLE:-.device/bundle}
HOST="$BUNDLE/host"
mkdir -p "$OUT"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(4096 8192)
LADDER16=${LADDER16:-wgmma_w0_p,wgmma_w0_p_sk,wgmma_w0_p_skl,wgmma_w1_p,wgmma_w0_np}
LADDER32=${LADDER32:-wgmma_rn_w0_p,wgmma_rn_w0_p_sk,wgmma_rn_w0_p_skl}
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv -lms 200 > "$OUT/wgmma_clock.csv" 2>/dev/null &
smi=$!
status=0
run() {
    echo "+ $*" >> "$OUT/wgmma.log"
    "$@" 2>>"$OUT/wgmma.log" || status=1
}
# Correctness first: the GPU tests of the Hopper GEMM (stream-K included), the edge shapes on
# every schedule (and each walking tiles with 3 blocks), then the f32 kernels' schedules on odd
# shapes checked in full.
if [ -x "$BUNDLE/tests/gpu_sm90" ]; then
    run timeout 240 "$BUNDLE/tests/gpu_sm90" --test-threads 1 > "$OUT/wgmma_tests.txt" 2>&1
fi
run "$HOST" sm90 --check --no-timing --schedules "$LADDER16" > "$OUT/wgmma_check16.json"
for p in tf32 3xtf32; do
    for t in "" --trans-b; do
        run "$HOST" matmul --m 777 --n 1000 --k 520 --precision $p --reps 2 --verify full --json $t \
            --no-cublas --kernel wgmma_w0_np,wgmma_w1_np,wgmma_w1_p3_g1,wgmma_w0_p2_g3,wgmma_p3_sk,wgmma_p5_skl9 \
            > "$OUT/wgmma_check_${p}${t}.json"
    done
done
# The ladder: 16-bit through `host sm90` (B row-major and transposed, cuBLAS GemmEx once per
# problem) and through `host matmul` (with the library's call `sm90`, which encodes its maps at
# every call), then TF32 (B row-major: split pass; B column-major: in place) and 3xTF32.
run "$HOST" sm90 --reps 20 --schedules "$LADDER16" "${sizes[@]}" > "$OUT/wgmma_sm90.json"
for n in "${sizes[@]}"; do
    for p in bf16 fp16; do
        run "$HOST" matmul "$n" --precision $p --reps 20 --json --verify sample \
            --kernel "sgemm,$LADDER16" > "$OUT/wgmma_${p}_$n.json"
    done
done
for n in "${sizes[@]}"; do
    for t in "" --trans-b; do
        run "$HOST" matmul "$n" --precision tf32 --reps 20 --json --verify sample $t \
            --kernel "sgemm,$LADDER32" > "$OUT/wgmma_tf32${t}_$n.json"
    done
    run "$HOST" matmul "$n" --precision 3xtf32 --reps 10 --json --verify sample \
        --kernel sgemm,wgmma_f2_w0_np,wgmma_f2_p > "$OUT/wgmma_3xtf32_$n.json"
done
kill "$smi" 2>/dev/null
echo "SM clock (MHz) during the run: $(awk -F', ' 'NR>1{sub(/ MHz/, "", $2); s+=$2; n++} END{if(n) printf "%.0f mean of %d samples", s/n, n}' "$OUT/wgmma_clock.csv")" | tee -a "$OUT/wgmma.log"
# Nsight Compute on one launch of the persistent BF16 kernel and the classic one at 4096
# (clocks left alone), when there is time and ncu.
if [ -z "${NO_NCU:-}" ] && command -v ncu >/dev/null; then
    for v in wgmma_w1_p wgmma_w0_np; do
        ncu --clock-control none --set full -k "regex:^wgmma_bf16_bn" --launch-skip 1 --launch-count 1 \
            "$HOST" matmul 4096 --precision bf16 --kernel $v --reps 1 --no-cublas --verify none \
            > "$OUT/wgmma_ncu_$v.txt" 2>&1 || echo "ncu $v failed" >> "$OUT/wgmma.log"
    done
fi
exit $status
