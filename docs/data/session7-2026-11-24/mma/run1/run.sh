set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/mma
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT0/gpu.txt"
cat .device/bundle/COMMIT >> "$OUT0/gpu.txt" 2>/dev/null
export BUNDLE=.device/bundle OUT=$OUT0
export CUBLAS_LIBRARY=${CUBLAS_LIBRARY:-$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)}
H=.device/bundle/host
# 1. every variant vs cuBLAS BF16 / FP16 at 4096 and 8192, SASS counts, ncu (scripts/gpu-mma.sh)
MMA_PEAK="bf16" timeout 110 bash $D/gpu-mma.sh 4096 8192 > "$OUT0/mma.log" 2>&1
echo "rc $? after ${SECONDS}s" >> "$OUT0/mma.log"
grep -v '^+' "$OUT0/mma.log" | grep -v '^tc_tf32\|^tc_mma\|^  main loop (.*HMMA \(64\|192\), LDGSTS 8' | tail -80
# 2. the tensor-core GPU tests (every tc_* kernel against the f64 reference)
export REQUIRE_GPU=1 HOST_BIN=$H APSP_TESTDATA=.device/bundle/testdata/apsp
left=$((150 - SECONDS)); [ $left -gt 60 ] || left=60
timeout $left .device/bundle/tests/gpu_tc --test-threads=1 > "$OUT0/gpu_tc.log" 2>&1
echo "rc $? after ${SECONDS}s" >> "$OUT0/gpu_tc.log"
tail -12 "$OUT0/gpu_tc.log"
# 3. compute-sanitizer memcheck / racecheck of the new kernels: aligned (interior fast path),
# interior tiles with a K tail, and odd (checked path only)
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  for k in tc_bf16_rr_w64l_s4 tc_bf16_rr_w64l_k64_s3 tc_bf16_rr_t128l_s4 tc_bf16_rr_t128l_k64_s3 tc_bf16_rr_t256l_s4 tc_fp16_rr_w64l_s4 tc_bf16_rc_w64l_s4:--trans-b tc_bf16_cr_w64l_s4:--trans-a "tc_bf16_cc_w64l_s4:--trans-a --trans-b"; do
    [ $SECONDS -lt 188 ] || { echo "out of time before $tool $k"; break 2; }
    kn=${k%%:*}; fl=""; [ "$kn" = "$k" ] || fl=${k#*:}
    p=${kn#tc_}; p=${p%%_*}
    odd="--m 17 --n 40 --k 24"   # leading dimensions must be multiples of 8 elements
    case "$fl" in --trans-a) odd="--m 24 --n 40 --k 17";; "--trans-a --trans-b") odd="--m 24 --n 40 --k 24";; esac
    for s in "--m 256 --n 512 --k 256" "--m 256 --n 512 --k 104" "$odd"; do
      # shellcheck disable=SC2086
      o=$($CS --tool $tool --error-exitcode 9 $H matmul $s --precision $p $fl --kernel $kn --reps 1 --no-cublas 2>&1); rc=$?
      echo "$tool $kn $fl $s: rc $rc $(echo "$o" | grep -E "SUMMARY|rror" | tail -2 | tr '\n' ' ')"
    done
  done
done > "$OUT0/sanitize.log" 2>&1
cat "$OUT0/sanitize.log" | tail -60
echo "total ${SECONDS}s"
