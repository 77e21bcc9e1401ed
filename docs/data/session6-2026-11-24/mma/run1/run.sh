set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/mma
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT0/gpu.txt"
cat .device/bundle/COMMIT >> "$OUT0/gpu.txt" 2>/dev/null
export BUNDLE=.device/bundle OUT=$OUT0
timeout 150 bash $D/gpu-mma.sh 4096 8192 > "$OUT0/mma.log" 2>&1
echo "rc $? after ${SECONDS}s" >> "$OUT0/mma.log"
tail -45 "$OUT0/mma.log"
# The tensor-core GPU tests (every tc_* kernel against the f64 reference) in what time is left.
left=$((188 - SECONDS))
if [ $left -gt 10 ]; then
    export REQUIRE_GPU=1 HOST_BIN=.device/bundle/host APSP_TESTDATA=.device/bundle/testdata/apsp
    export CUBLAS_LIBRARY=${CUBLAS_LIBRARY:-$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)}
    timeout $left .device/bundle/tests/gpu_tc --test-threads=1 > "$OUT0/gpu_tc.log" 2>&1
    echo "rc $? after ${SECONDS}s" >> "$OUT0/gpu_tc.log"
    tail -15 "$OUT0/gpu_tc.log"
fi
