set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/small
mkdir -p "$OUT0" "$OUT0/r"
tar xJf $D/bundle.tar.xz || exit 1
cat .device/bundle/COMMIT 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
# Almost no work besides the critical path and the launch: V = 32, 96, 128 (plain and held),
# with an empty launch (plain, cooperative) beside them.
for v in 32 96 128; do
  e=$((v * 40)); [ $e -gt $((v * (v - 1))) ] && e=$((v * (v - 1)))
  .device/bundle/host apsp-gen $v $e --seed 1 -o /tmp/c$v.in >/dev/null
  timeout 20 .device/bundle/host apsp-small /tmp/c$v.in --reps 20 --hold-us 3000 > "$OUT0/r/critical_$v.txt" 2>&1
  cat "$OUT0/r/critical_$v.txt"
done
# Timings (every schedule, plain and held), then the schedules' GPU tests and identity at
# awkward V, then compute-sanitizer on the pull kernels.
CHECK=1 SANITIZE=${SANITIZE:-1} REPS=10 HOLD_US=3000 timeout 155 bash $D/gpu-small.sh .device/bundle/host "$OUT0/r" ${VS:-1000 1500 2000 2500 3000 4000 5000} 2>&1 | tee "$OUT0/gpu-small.log"
mv "$OUT0/r/clock_small.csv" "$OUT0/"
tar czf "$OUT0/raw.tar.gz" -C "$OUT0" r && rm -rf "$OUT0/r"
