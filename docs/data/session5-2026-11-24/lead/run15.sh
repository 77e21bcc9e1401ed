#!/usr/bin/env bash
# Device call 15 (session 5, nvidia-h200): the GPU tests whose checks moved into
# host/tests/common (gemm.rs, graphs.rs), on bundle ec10c44.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
export REQUIRE_GPU=1 APSP_TESTDATA=$B/testdata/apsp HOST_BIN=$H NCCL_NVLS_ENABLE=0
W=/tmp/w15; mkdir -p $W
for t in gpu_blas gpu_route gpu_batched_small gpu_apsp_paths gpu_apsp_multi_paths; do
  ( timeout 150 $B/tests/$t --test-threads=1 ) > $W/$t.log 2>&1; echo "$t rc $?"
  grep -E "test result|FAILED|panicked" $W/$t.log | head -4
done
tar czf "$OUT0/run15.tar.gz" -C $W .
