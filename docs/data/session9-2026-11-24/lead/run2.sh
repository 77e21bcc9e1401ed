#!/usr/bin/env bash
# Session 9, lead device call 2 (nvidia-h200): GPU tests of the sm90 and float areas
# (gpu_sm90_tf32, gpu_sm90, gpu_apsp_float, gpu_apsp with HOST_BIN), the float kernels' old and new
# defaults at V = 30000 (full solves) against their ceilings, TF32 with B row-major (load / split /
# library) with compute-sanitizer on the two load kernels, and issue 21's rounds (BF16/FP16/TF32).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
W=/tmp/w2; mkdir -p $W/float $W/tf32 $W/rounds
export HOST_BIN=$PWD/$H
for t in gpu_sm90_tf32:90 gpu_apsp_float:90 gpu_sm90:120 gpu_apsp:60; do
  n=${t%%:*}; l=${t##*:}
  [ -x $B/tests/$n ] || { echo "$n missing"; continue; }
  timeout $l $B/tests/$n --test-threads 1 > $W/test_$n.log 2>&1; echo "$n rc $?"
  grep -E "FAILED|test result" $W/test_$n.log
done
tar czf "$OUT0/s9run2.tar.gz" -C $W .
VARIANTS_F32=default,t8x8_k64_pair_u2 VARIANTS_F64=default,r8c4_k32_a2_r128 FULL_TOP=2 OUT=$W/float timeout 150 scripts/gpu-run.sh float 30000 48 3 > $W/float.log 2>&1; echo "float rc $?"
tail -14 $W/float.log
tar czf "$OUT0/s9run2.tar.gz" -C $W .
SAN=1 SANK="wgmma_load wgmma_load_lg2" OUT=$W/tf32 timeout 100 scripts/gpu-run.sh sm90-tf32 > $W/tf32.log 2>&1; echo "sm90-tf32 rc $?"
tail -15 $W/tf32.log
tar czf "$OUT0/s9run2.tar.gz" -C $W .
OUT=$W/rounds timeout 170 scripts/gpu-run.sh sm90-rounds > $W/rounds.log 2>&1; echo "sm90-rounds rc $?"
tail -20 $W/rounds/rounds.log 2>/dev/null
tar czf "$OUT0/s9run2.tar.gz" -C $W .
