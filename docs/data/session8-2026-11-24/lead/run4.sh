#!/usr/bin/env bash
# Session 8, lead device call 4 (nvidia-h200): the final main (after the mends that follow the
# measured bundle a24e676 and the random_padded mend) — the GPU tests whose operands now come from
# rgk_core::matmul::reference::random_padded: gpu_sm90, gpu_sm90_tf32, gpu_sgemm, gpu_skinny.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle4.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
export HOST_BIN=$PWD/$H REQUIRE_GPU=1
W=/tmp/w4; mkdir -p $W
for t in gpu_sm90:150 gpu_sm90_tf32:60 gpu_sgemm:60 gpu_skinny:60; do
  n=${t%%:*}; l=${t##*:}
  timeout $l $B/tests/$n --test-threads 1 > $W/test_$n.log 2>&1; echo "$n rc $?"
  grep -E "FAILED|test result" $W/test_$n.log
done
tar czf "$OUT0/s8run4.tar.gz" -C $W .
