set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/tf32
mkdir -p "$OUT0/r"
tar xJf $D/bundle.tar.xz || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$OUT0/r/gpu.txt"
cat .device/bundle/COMMIT > "$OUT0/r/COMMIT"; date -u > "$OUT0/r/date.txt"
# tests; load variants (one group / two, L2 prefetch distance) vs split vs cuBLAS TF32; B transposed; sanitizer of both load kernels
S=wgmma_load,wgmma_load_lg2,wgmma_load_pre6,wgmma_load_lg2_pre6,wgmma_load_lg2_pre0,wgmma_split \
OUT="$OUT0/r" BUNDLE=.device/bundle SAN=1 SANK="wgmma_load wgmma_load_lg2" R4096=9 R8192=7 bash $D/gpu-sm90-tf32.sh
echo "script rc $?" >> "$OUT0/r/tf32.log"
tar czf "$OUT0/out.tar.gz" -C "$OUT0" r
{ cat "$OUT0/r/gpu.txt" "$OUT0/r/COMMIT" "$OUT0/r/tf32.log"; grep -h "test result\|panicked\|FAILED" "$OUT0/r/tf32_tests.txt"; cat "$OUT0/r/tf32_san_summary.txt" 2>/dev/null; for f in "$OUT0"/r/tf32_*.err; do echo "== $f"; tail -n 12 "$f"; done; } > "$OUT0/summary.txt" 2>&1
rm -rf "$OUT0/r"
