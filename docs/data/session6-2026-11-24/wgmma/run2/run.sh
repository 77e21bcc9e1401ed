# Session 6, helper wgmma, call 2: the GPU tests to completion (stream-K's correctness), TF32
# with and without stream-K, and the 16-bit 4096 problems run 1 did not reach.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/wgmma
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
cat $B/COMMIT > "$OUT0/commit.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv -lms 200 > "$OUT0/clock.csv" 2>/dev/null &
smi=$!
run() { echo "+ $* ($(date -u +%T))" >> "$OUT0/log.txt"; "$@" 2>>"$OUT0/log.txt"; echo "rc $?" >> "$OUT0/log.txt"; }
L32=wgmma_rn_w0_p,wgmma_rn_w0_p_sk,wgmma_rn_w0_p_sk1
for n in 4096 8192; do
  run timeout 15 $H matmul $n --precision tf32 --reps 30 --json --verify sample --kernel "sgemm,$L32" > "$OUT0/tf32_bn_$n.json"
  run timeout 15 $H matmul $n --precision tf32 --reps 30 --json --verify sample --trans-b --kernel "sgemm,$L32" > "$OUT0/tf32_bk_$n.json"
done
run timeout 25 $H sm90 --reps 50 --check-rows 2 --schedules wgmma_w0_p,wgmma_w0_p_sk 4096 > "$OUT0/sm90_4096.json"
run timeout 120 $B/tests/gpu_sm90 --test-threads 1 > "$OUT0/tests_gpu_sm90.txt" 2>&1
kill $smi 2>/dev/null
awk -F', ' 'NR>1{sub(/ MHz/,"",$2); s+=$2; n++} END{if(n) printf "SM clock during the run: mean %.0f MHz (%d samples)\n", s/n, n}' "$OUT0/clock.csv" | tee -a "$OUT0/log.txt"
gzip -f "$OUT0/clock.csv"
