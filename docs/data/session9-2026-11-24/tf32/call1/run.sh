set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/tf32
mkdir -p "$OUT0/r"
tar xJf $D/bundle.tar.xz || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > "$OUT0/r/gpu.txt"
cat .device/bundle/COMMIT >> "$OUT0/r/gpu.txt"
# tests, timings (load / split / library / dp variants / cuBLAS TF32), B transposed, sanitizer of the new kernel
OUT="$OUT0/r" BUNDLE=.device/bundle SAN=1 SANK=wgmma_load R4096=9 R8192=7 bash $D/gpu-sm90-tf32.sh
echo "rc $?" >> "$OUT0/r/tf32.log"
tar czf "$OUT0/out.tar.gz" -C "$OUT0" r
{ cat "$OUT0/r/gpu.txt"; cat "$OUT0/r/tf32.log"; grep -h "test result\|panicked\|FAILED" "$OUT0/r/tf32_tests.txt"; cat "$OUT0/r/tf32_san_summary.txt" 2>/dev/null; for f in "$OUT0"/r/tf32_*.err; do echo "== $f"; tail -n 12 "$f"; done; } > "$OUT0/summary.txt" 2>&1
rm -rf "$OUT0/r"
