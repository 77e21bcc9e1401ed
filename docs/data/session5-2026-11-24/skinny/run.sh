set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/skinny
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz -C $D || exit 1     # unpacks $D/bundle: host and the two GPU test binaries
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader | tee "$OUT0/device.txt"
if [ -z "${CUBLAS_LIBRARY:-}" ]; then
    CUBLAS_LIBRARY=$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)
    [ -n "$CUBLAS_LIBRARY" ] || CUBLAS_LIBRARY=$(find / -xdev -name 'libcublas.so.13' 2>/dev/null | head -1)
    export CUBLAS_LIBRARY
fi
export REQUIRE_GPU=1
cat $D/bundle/commit.txt | tee "$OUT0/commit.txt"
# The new and changed kernels against the f64 reference first.
for t in $D/bundle/gpu_batched_small $D/bundle/gpu_skinny; do
    echo "+ $t" ; timeout 25 "$t" --test-threads=1 2>&1 | tail -15
done > "$OUT0/tests.log" 2>&1
grep -E "test result|FAILED|panicked" "$OUT0/tests.log"
# The skinny script reads host/data/sgemm-shapes-skinny.txt from the checkout: give it ours.
mkdir -p host/data && cp $D/sgemm-shapes-skinny.txt host/data/
timeout 170 bash $D/gpu-skinny.sh $D/bundle/host "$OUT0"
