#!/usr/bin/env bash
# Session 8, lead device call 3 (nvidia-h200): the final main (after the mends that follow the
# measured bundle a24e676: fwf_slice_product!, sm90::hopper_for_test, balance.rs) — the GPU tests
# of the files those mends touched: gpu_sm90, gpu_sm90_tf32, gpu_apsp_float, gpu_route,
# gpu_flagship_batched, gpu_matmul.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle3.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
export HOST_BIN=$PWD/$H REQUIRE_GPU=1
W=/tmp/w3; mkdir -p $W
for t in gpu_sm90:150 gpu_sm90_tf32:60 gpu_apsp_float:60 gpu_route:60 gpu_flagship_batched:60 gpu_matmul:90; do
  n=${t%%:*}; l=${t##*:}
  timeout $l $B/tests/$n --test-threads 1 > $W/test_$n.log 2>&1; echo "$n rc $?"
  grep -E "FAILED|test result" $W/test_$n.log
done
tar czf "$OUT0/s8run3.tar.gz" -C $W .
