#!/usr/bin/env bash
# Session 7, lead device call 1 (nvidia-h200): the merged main's GPU tests of every area the
# session changed (tensor cores, Hopper, skinny SGEMM, float min-plus), then issue 21's Hopper
# targets interleaved with cuBLAS (scripts/gpu-run.sh sm90-rounds) and the mma.sync path
# against cuBLAS BF16 (scripts/gpu-run.sh mma 4096 8192, without ncu and SASS).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
W=/tmp/w1; mkdir -p $W/rounds
for t in gpu_tc:100 gpu_skinny:60 gpu_apsp_float:60 gpu_sm90:120; do
  n=${t%%:*}; l=${t##*:}
  timeout $l $B/tests/$n --test-threads 1 > $W/test_$n.log 2>&1; echo "$n rc $?"
  grep -E "^test .*(FAILED|ok)$|test result" $W/test_$n.log | grep -E "FAILED|test result"
done
tar czf "$OUT0/s7run1.tar.gz" -C $W .
OUT=$W/rounds timeout 160 scripts/gpu-run.sh sm90-rounds > $W/rounds.log 2>&1; echo "sm90-rounds rc $?"
cat $W/rounds/rounds.log; grep -h -E "median|ratio" $W/rounds/rounds_*.err | cut -c1-300 | head -40
tar czf "$OUT0/s7run1.tar.gz" -C $W .
MMA_NCU=0 MMA_SASS=0 MMA_PEAK=bf16 OUT=$W timeout 150 scripts/gpu-run.sh mma 4096 8192 > $W/mma.log 2>&1; echo "mma rc $?"
cat $W/mma/summary.txt 2>/dev/null | head -60
tar czf "$OUT0/s7run1.tar.gz" -C $W .
