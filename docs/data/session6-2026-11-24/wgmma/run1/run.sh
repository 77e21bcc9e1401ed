# Session 6, helper wgmma: stream-K for the Hopper GEMM's tail (issue #21). One call.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/wgmma
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
cat $B/COMMIT > "$OUT0/commit.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$OUT0/gpu.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv -lms 200 > "$OUT0/clock.csv" 2>/dev/null &
smi=$!
L16=wgmma_w0_p,wgmma_w0_p_sk,wgmma_w0_p_sk1,wgmma_w1_p_sk,wgmma_w0_p_sk2
L32=wgmma_rn_w0_p,wgmma_rn_w0_p_sk,wgmma_rn_w0_p_sk1
run() { echo "+ $* ($(date -u +%T))" >> "$OUT0/log.txt"; "$@" 2>>"$OUT0/log.txt"; echo "rc $?" >> "$OUT0/log.txt"; }
# 1. 16-bit: every schedule against cuBLAS GemmEx in one process (8 sampled rows checked each).
run timeout 30 $H sm90 --reps 50 --schedules $L16 4096 > "$OUT0/sm90_4096.json"
run timeout 45 $H sm90 --reps 30 --schedules $L16 8192 > "$OUT0/sm90_8192.json"
# 2. TF32 (B row-major: split pass; --trans-b: in place) against cuBLAS TF32.
for n in 4096 8192; do for t in "" --trans-b; do
  run timeout 18 $H matmul $n --precision tf32 --reps 30 --json --verify sample $t \
      --kernel "sgemm,$L32" > "$OUT0/tf32${t}_$n.json"
done; done
# 3. Correctness: edge shapes on the stream-K schedules (and 3 blocks), then the GPU tests.
run timeout 15 $H sm90 --check --no-timing --schedules wgmma_w0_p_sk,wgmma_w1_p_sk1,wgmma_p5_sk9 > "$OUT0/check16.json"
run timeout 30 $B/tests/gpu_sm90 --test-threads 1 > "$OUT0/tests_gpu_sm90.txt" 2>&1
kill $smi 2>/dev/null
awk -F', ' 'NR>1{sub(/ MHz/,"",$2); s+=$2; n++; if($2>mx)mx=$2} END{if(n) printf "SM clock during the run: mean %.0f MHz, max %d MHz (%d samples)\n", s/n, mx, n}' "$OUT0/clock.csv" | tee -a "$OUT0/log.txt"
gzip -f "$OUT0/clock.csv"
