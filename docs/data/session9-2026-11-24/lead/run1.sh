#!/usr/bin/env bash
# Session 9, lead device call 1 (nvidia-h200): the merged main's SGEMM (issue 20): GPU tests of the
# session's rules and kernels (gpu_mid, gpu_route, gpu_flagship_batched, gpu_blas, gpu_sgemm,
# gpu_matmul, gpu_batched_small), the committed suite in three processes with the outside lists
# (session 8's, mid's, bops's), and compute-sanitizer on two new batched kernels.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
W=/tmp/w1; mkdir -p $W/mid $W/bops
export HOST_BIN=$PWD/$H
for t in gpu_mid:60 gpu_route:60 gpu_flagship_batched:90 gpu_blas:90 gpu_sgemm:120 gpu_matmul:90 gpu_batched_small:60 gpu_skinny:60 gpu_skinny_split:60; do
  n=${t%%:*}; l=${t##*:}
  [ -x $B/tests/$n ] || { echo "$n missing"; continue; }
  timeout $l $B/tests/$n --test-threads 1 > $W/test_$n.log 2>&1; echo "$n rc $?"
  grep -E "FAILED|test result" $W/test_$n.log
done
tar czf "$OUT0/s9run1.tar.gz" -C $W .
PARTS="suite outside" SUITE_RUNS=3 OUT=$W/mid timeout 330 scripts/gpu-run.sh shapes-mid docs/data/session8-2026-11-24/shapes/outside.txt host/data/mid/outside.txt docs/data/session9-2026-11-24/bops/outside_bops.txt > $W/mid.log 2>&1; echo "shapes-mid rc $?"
grep -iE "geometric|FAILED" $W/mid.log | cut -c1-200
tar czf "$OUT0/s9run1.tar.gz" -C $W .
PARTS="sanitize" OUT=$W/bops timeout 60 scripts/gpu-run.sh shapes-bops > $W/bops.log 2>&1; echo "shapes-bops sanitize rc $?"
tail -5 $W/bops.log
tar czf "$OUT0/s9run1.tar.gz" -C $W .
