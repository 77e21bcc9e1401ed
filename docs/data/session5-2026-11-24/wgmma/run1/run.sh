set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/wgmma
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT0/gpu.txt"
date -u >> "$OUT0/gpu.txt"; cat .device/bundle/COMMIT >> "$OUT0/gpu.txt"
REQUIRE_GPU=1 timeout 40 .device/bundle/tests/gpu_sm90 > "$OUT0/gpu_sm90_test.log" 2>&1; echo "gpu_sm90 test rc $?" | tee -a "$OUT0/gpu.txt"
OUT="$OUT0" BUNDLE=.device/bundle timeout 140 bash $D/gpu-wgmma.sh "$@"
echo "rc $?" >> "$OUT0/gpu.txt"
grep -h "rust\|FAIL\|fail\|error" "$OUT0/wgmma.log" | head -60
