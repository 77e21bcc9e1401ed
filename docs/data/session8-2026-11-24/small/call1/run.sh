set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/small
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
cat .device/bundle/COMMIT 2>/dev/null
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
# Almost no work besides the critical path and the launch: V = 32, 96, 128 (plain and held).
for v in 32 96 128; do
  .device/bundle/host apsp-gen $v $((v * 40)) --seed 1 -o /tmp/c$v.in >/dev/null
  timeout 20 .device/bundle/host apsp-small /tmp/c$v.in --reps 20 --hold-us 3000 > "$OUT0/critical_$v.txt" 2>&1
  head -11 "$OUT0/critical_$v.txt"
done
# Timings (V = 1000 1500 2000 3000, every schedule, plain and held), then the schedules'
# GPU tests and identity at awkward V, then compute-sanitizer on the pull kernels.
CHECK=1 SANITIZE=${SANITIZE:-1} REPS=10 HOLD_US=3000 timeout 150 bash $D/gpu-small.sh .device/bundle/host "$OUT0" ${VS:-1000 1500 2000 3000} 2>&1 | tee "$OUT0/gpu-small.log"
