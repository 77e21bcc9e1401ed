#!/usr/bin/env bash
# Device call 10 (session 5, nvidia-h200): the multi-GPU path kernels through the split on one
# GPU (gpu_apsp_multi_paths), the one-GPU path and split tests, compute-sanitizer on the split
# path kernels, and --paths at V = 30000 (1 GPU) to see that the one-GPU kernels are unchanged.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv
export REQUIRE_GPU=1 APSP_TESTDATA=$B/testdata/apsp HOST_BIN=$H NCCL_NVLS_ENABLE=0
W=/tmp/w10; mkdir -p $W/tests $W/san
for t in gpu_apsp_multi_paths gpu_apsp_paths gpu_apsp_multi; do
  ( timeout 150 $B/tests/$t --test-threads=1 ) > $W/tests/$t.log 2>&1; echo "$t rc $?"
  grep -E "test result|FAILED|panicked|SKIPPED" $W/tests/$t.log | head -8
done
CS=compute-sanitizer
for tool in memcheck racecheck; do
  ( timeout 120 $CS --tool $tool --error-exitcode 9 $B/tests/gpu_apsp_multi_paths one_gpu --test-threads=1 ) > $W/san/$tool.log 2>&1
  echo "sanitizer $tool rc $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" $W/san/$tool.log | tail -3
done
$H apsp-gen 30000 1200000 -o /tmp/g30k.in > /dev/null
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 500 > $W/clock.csv & CL=$!
for kind in successors predecessors; do
  timeout 60 $H apsp /tmp/g30k.in -o /tmp/d.out --paths /tmp/p.paths --path-kind $kind --json > $W/paths30k_$kind.json 2>$W/paths30k_$kind.err
  echo "paths $kind rc $? compute $(grep -o '"compute_s":[0-9.]*' $W/paths30k_$kind.json)"
done
kill $CL
tar czf "$OUT0/run10.tar.gz" -C $W .
