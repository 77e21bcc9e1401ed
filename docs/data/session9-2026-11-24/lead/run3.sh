#!/usr/bin/env bash
# Session 9, lead device call 3 (nvidia-h200): the three GPU test files whose buffer set-up moved
# into tests/common/gemm.rs (`fresh_operands`) after the measured bundle: gpu_mid, gpu_route,
# gpu_flagship_batched, built at the working tree of that mend.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/tests3.tar.xz -C /tmp || exit 1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
for n in gpu_mid gpu_route gpu_flagship_batched; do
  REQUIRE_GPU=1 timeout 120 /tmp/t/$n --test-threads 1 > $OUT0/test_$n.log 2>&1; echo "$n rc $?"
  grep -E "FAILED|test result|SKIPPED" $OUT0/test_$n.log | head -5
done
