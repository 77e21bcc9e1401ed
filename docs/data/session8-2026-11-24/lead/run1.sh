#!/usr/bin/env bash
# Session 8, lead device call 1 (nvidia-h200): the merged main's GPU tests of the areas this session
# changed (SGEMM batches/routes, small-graph schedules), the SGEMM shape suite twice with the outside
# list (scripts/gpu-run.sh shapes-s8 parts tests suite outside, then the suite again), and the
# small-graph schedules (scripts/gpu-run.sh small 1000 1500 2000 2500 3000 4000 5000, CHECK=1).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
W=/tmp/w1; mkdir -p $W/shapes $W/small
for t in gpu_skinny:60 gpu_skinny_split:60 gpu_batched_small:60 gpu_route:60 gpu_matmul:90 gpu_sgemm:120 gpu_apsp:90; do
  n=${t%%:*}; l=${t##*:}
  [ -x $B/tests/$n ] || continue
  timeout $l $B/tests/$n --test-threads 1 > $W/test_$n.log 2>&1; echo "$n rc $?"
  grep -E "FAILED|test result" $W/test_$n.log
done
PARTS="tests suite outside" OUT=$W/shapes timeout 200 scripts/gpu-run.sh shapes-s8 > $W/shapes.log 2>&1; echo "shapes-s8 rc $?"
grep -E "geometric|FAILED|test result" $W/shapes.log | cut -c1-200
timeout 90 $H bench -o $W/shapes/suite_2.jsonl sgemm-shapes > /dev/null 2> $W/shapes/suite_2.txt; echo "suite 2 rc $?"
grep -i geometric $W/shapes/suite_2.txt
tar czf "$OUT0/s8run1.tar.gz" -C $W .
CHECK=1 OUT=$W/small timeout 200 scripts/gpu-run.sh small 1000 1500 2000 2500 3000 4000 5000 > $W/small.log 2>&1; echo "small rc $?"
grep -E "default|FAILED|test result|identical" $W/small.log | grep -E "pull64 |pull64x8|flow64 |launches|FAILED|result|identical" | cut -c1-220 | head -60
tar czf "$OUT0/s8run1.tar.gz" -C $W .
