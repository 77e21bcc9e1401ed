set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/mma
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT0/gpu.txt"
cat .device/bundle/COMMIT >> "$OUT0/gpu.txt" 2>/dev/null
export BUNDLE=.device/bundle OUT=$OUT0
export CUBLAS_LIBRARY=${CUBLAS_LIBRARY:-$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)}
H=.device/bundle/host
# 1. every variant vs cuBLAS BF16 / FP16 (same process) at 4096 and 8192, layouts at 4096, SASS, ncu
MMA_PEAK="bf16" MMA_LADDER=0 timeout 95 bash $D/gpu-mma.sh 4096 8192 > "$OUT0/mma.log" 2>&1
echo "rc $? after ${SECONDS}s" >> "$OUT0/mma.log"
grep -v '^+' "$OUT0/mma.log" | grep -v '^tc_tf32\|^tc_mma' | tail -90
# 2. the smaller sizes where config_for switches tiles (BF16 row-major)
for n in 1000 2048; do
  timeout 12 $H matmul $n --precision bf16 --kernel tc_bf16_rr_s4,tc_bf16_rr_w64l_s4,tc_bf16_rr_l_s4,tc_bf16_rr_w32l_s4,tc_bf16_rr_l_k64_s3,tc_bf16_rr_w32l_k64_s3 --reps 20 --verify sample --json > "$OUT0/size_bf16_$n.json" 2> "$OUT0/size_$n.err" || echo "FAILED size $n"
done
python3 - "$OUT0" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(f"{sys.argv[1]}/size_*.json")):
    try:
        rs = json.load(open(f))["results"]
    except Exception as e:
        print(f, e); continue
    for r in rs:
        print(f'{os.path.basename(f):<20} {r["m"]:>5} {r["kernel"]:<24} {r["median_ms"]:>8.3f} ms {r["tflops"]:>7.1f} TFLOP/s {(r["percent_of_cublas"] or 0):>6.1f}% cuBLAS failures {r["failures"]}')
PY
echo "after ${SECONDS}s"
# 3. the tensor-core GPU tests (every tc_* kernel against the f64 reference)
export REQUIRE_GPU=1 HOST_BIN=$H APSP_TESTDATA=.device/bundle/testdata/apsp
left=$((158 - SECONDS)); [ $left -gt 30 ] || left=30
timeout $left .device/bundle/tests/gpu_tc --test-threads=1 > "$OUT0/gpu_tc.log" 2>&1
echo "rc $? after ${SECONDS}s" >> "$OUT0/gpu_tc.log"
grep -E "^test |test result|panicked|rc " "$OUT0/gpu_tc.log" | tail -14
# 4. compute-sanitizer memcheck / racecheck of the new kernels: aligned (interior fast path),
# interior tiles with a K tail, and odd (checked path only), while time is left
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  for k in tc_bf16_rr_l_s4 tc_bf16_rr_w32l_s4 tc_bf16_rr_w32l_k64_s3 tc_bf16_rr_l_k64_s3 "tc_fp16_cc_w32l_s4:--trans-a --trans-b" "tc_bf16_cc_l_s4:--trans-a --trans-b"; do
    [ $SECONDS -lt 174 ] || { echo "out of time before $tool $k"; break 2; }
    kn=${k%%:*}; fl=""; [ "$kn" = "$k" ] || fl=${k#*:}
    p=${kn#tc_}; p=${p%%_*}
    odd="--m 17 --n 40 --k 24"
    case "$fl" in --trans-a) odd="--m 24 --n 40 --k 17";; "--trans-a --trans-b") odd="--m 24 --n 40 --k 24";; esac
    for s in "--m 256 --n 512 --k 256" "--m 256 --n 512 --k 200" "$odd"; do
      # shellcheck disable=SC2086
      o=$(timeout 20 $CS --tool $tool --error-exitcode 9 $H matmul $s --precision $p $fl --kernel $kn --reps 1 --no-cublas 2>&1); rc=$?
      echo "$tool $kn $fl $s: rc $rc $(echo "$o" | grep -E "SUMMARY|rror" | tail -2 | tr '\n' ' ')"
    done
  done
done > "$OUT0/sanitize.log" 2>&1
cat "$OUT0/sanitize.log"
echo "total ${SECONDS}s"
