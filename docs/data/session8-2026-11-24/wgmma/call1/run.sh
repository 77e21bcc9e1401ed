set -u
OUT0=${OUT:-/tmp/out}; D=.device-h/wgmma
mkdir -p "$OUT0/r"
tar xJf $D/bundle.tar.xz || exit 1
cat .device/bundle/COMMIT > "$OUT0/r/COMMIT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$OUT0/r/gpu.txt"
date -u > "$OUT0/r/date.txt"
OUT="$OUT0/r" BUNDLE=.device/bundle SAN=${SAN:-1} bash $D/gpu-sm90-tf32.sh
rc=$?
bash $D/clock-summary.sh "$OUT0/r/tf32_clock.csv" > "$OUT0/r/clock_summary.txt" 2>&1
echo "script rc $rc" >> "$OUT0/r/tf32.log"
cat "$OUT0/r/tf32.log"; tail -5 "$OUT0/r/tf32_tests.txt"; cat "$OUT0/r"/tf32_*.err | grep -v "^$" | tail -20; cat "$OUT0/r/tf32_san_summary.txt" 2>/dev/null
tar czf "$OUT0/r.tar.gz" -C "$OUT0" r && rm -rf "$OUT0/r"
exit 0
