# wgmma helper, session 7, call 1: the 4096 verdict (interleaved with cuBLAS), the skl/dp
# crossover by wave count, TF32 through the library, and what a 4096 launch loses.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/wgmma
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
H=.device/bundle/host
cat .device/bundle/COMMIT > "$OUT0/commit.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$OUT0/gpu.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 250 > "$OUT0/clock.csv" 2>/dev/null &
smi=$!
t0=$(date +%s)
r() { local name=$1 lim=$2; shift 2; echo "+ [$(( $(date +%s) - t0 ))s] $*" >> "$OUT0/log.txt";
      timeout "$lim" "$@" > "$OUT0/$name.json" 2> "$OUT0/$name.err"; echo "rc=$? [$(( $(date +%s) - t0 ))s]" >> "$OUT0/log.txt"; }
# 1. The 4096 verdict: 16-bit, both B layouts, 7 interleaved rounds of 20 launches.
r v4096 40 $H sm90 --inputs bf16,fp16 --b n,k --rounds 7 --reps 20 --check-rows 2 \
   --schedules wgmma_w0_p_dp,wgmma_w0_p_g16_dp 4096
# 2. The crossover of whole tiles (dp) and skl by waves (128x256 tiles on 132 SMs:
#    4096 3.9, 5120 6.1, 6144 8.7, 7168 11.9, 8192 15.5 waves).
r cross_bf16 45 $H sm90 --inputs bf16 --b n --rounds 5 --reps 10 --check-rows 2 \
   --schedules wgmma_w0_p_dp,wgmma_w0_p_skl 5120 6144 7168 8192
# 3. The GPU tests of the new default and stream-K (library schedule at 8.2 waves).
timeout 40 .device/bundle/tests/gpu_sm90 --test-threads 1 the_library_schedule stream_k > "$OUT0/tests.txt" 2>&1
echo "tests rc=$? [$(( $(date +%s) - t0 ))s]" >> "$OUT0/log.txt"
# 4. TF32 through the library (split pass of row-major B inside each launch).
r tf32 40 $H sm90 --inputs tf32 --b n,k --rounds 5 --reps 10 --check-rows 2 \
   --schedules wgmma_dp,wgmma_skl 4096 8192
# 5. What a 4096 launch loses: 4 whole waves (4224 rows: 528 tiles), twice the k per tile,
#    a grid of 128 (4 tiles each), and FP16 at the crossover sizes.
r loss 30 $H sm90 --inputs bf16 --b n --rounds 5 --reps 20 --check-rows 2 \
   --schedules wgmma_w0_p_dp,wgmma_w0_p128_dp,wgmma_w0_p_skl 4224x4096x4096 4096x4096x8192
r cross_fp16 30 $H sm90 --inputs fp16 --b k --rounds 5 --reps 10 --check-rows 2 \
   --schedules wgmma_w0_p_dp,wgmma_w0_p_skl 5120 6144 8192
kill $smi 2>/dev/null
echo "total $(( $(date +%s) - t0 ))s" >> "$OUT0/log.txt"
cat "$OUT0/log.txt"; cat "$OUT0"/*.err | grep -v "^$" | tail -60; tail -5 "$OUT0/tests.txt"
