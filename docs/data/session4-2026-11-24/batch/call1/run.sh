set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/batch
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
export BUNDLE=.device/bundle HOST_BIN=$PWD/.device/bundle/host OUT=$OUT0
H=.device/bundle/host
{
date -u; cat .device/bundle/COMMIT; echo
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
$H info | grep apsp_batch
nproc; df -h /tmp | tail -1
} > "$OUT0/env.txt" 2>&1
cat "$OUT0/env.txt"
# 1. Measurements (scripts/gpu-batch.sh): every V=128 kernel, file to file vs dd, blocked classes.
REPS=2 timeout 95 bash $D/gpu-batch.sh 10000 128 > "$OUT0/batch.log" 2>&1
echo "batch rc=$?"; grep -v "^+ " "$OUT0/batch.log"
# 2. Correctness: the batch GPU tests (every class, every variant, blocked, files).
timeout 40 .device/bundle/tests/gpu_apsp_batch batch --test-threads=1 > "$OUT0/tests.log" 2>&1
echo "tests rc=$?"; grep -E "^test |test result" "$OUT0/tests.log"
# 3. Sanitizers on the new kernels: classes 32/128 and blocked 300; the other V=128 kernels.
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$CS" ]; then
  t=/tmp/bsan; rm -rf $t; mkdir -p $t/in
  for v in 17 128 300; do $H apsp-gen $v $((4*v)) --seed $v -o $t/in/g$v.in >/dev/null; done
  timeout 15 $CS --tool memcheck --error-exitcode 9 $H apsp-batch $t/in -o $t/out --quiet > "$OUT0/san_memcheck.log" 2>&1
  echo "sanitize memcheck default rc=$?"
  timeout 20 $CS --tool racecheck --error-exitcode 9 $H apsp-batch $t/in -o $t/out --quiet > "$OUT0/san_racecheck.log" 2>&1
  echo "sanitize racecheck default rc=$?"
  for k in apsp_batch_n128_c4 apsp_batch_n128_r8c4; do
    timeout 10 $CS --tool racecheck --error-exitcode 9 $H apsp-batch $t/in/g128.in -o $t/out --quiet --kernel $k > "$OUT0/san_racecheck_$k.log" 2>&1
    echo "sanitize racecheck $k rc=$?"
  done
  tail -3 "$OUT0"/san_*.log
  rm -rf $t
else
  echo "no compute-sanitizer"
fi
