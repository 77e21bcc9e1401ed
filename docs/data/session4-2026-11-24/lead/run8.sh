#!/usr/bin/env bash
# Device call 8 (session 4, nvidia-h200): every GPU test of the merged main, the path tests again
# without the L2 prefetch, compute-sanitizer on this session's new kernels.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
echo "commit $(cat .device/bundle/COMMIT)"; date -u
W=/tmp/w8; mkdir -p $W/check $W/san
( OUT=$W/check TEST_TIMEOUT=200 timeout 420 scripts/gpu-run.sh check ) > $W/check.log 2>&1
echo "check rc $?"; grep -E "FAILED|panicked" $W/check.log | head -20; tail -3 $W/check.log
( RGK_PATHS_PREFETCH=0 timeout 60 .device/bundle/tests/gpu_apsp_paths --test-threads=1 ) > $W/paths_noprefetch.log 2>&1
echo "paths without prefetch rc $?"; grep "test result" $W/paths_noprefetch.log
tar czf "$OUT0/run8.tar.gz" -C $W .
CS=compute-sanitizer; H=.device/bundle/host
san() { echo "+ $*" >> $W/san/san.log; timeout 60 "$@" >> $W/san/san.log 2>&1; echo "rc $? : $*" | tee -a $W/san/summary.txt; }
for tool in memcheck racecheck; do
  for p in tf32 3xtf32; do
    san $CS --tool $tool --error-exitcode 9 $H matmul 256 --precision $p --kernel wgmma --reps 1 --no-cublas
    san $CS --tool $tool --error-exitcode 9 $H matmul --m 17 --n 40 --k 24 --precision $p --kernel wgmma --reps 1 --no-cublas
    san $CS --tool $tool --error-exitcode 9 $H matmul --m 17 --n 40 --k 24 --precision $p --kernel wgmma --trans-b --reps 1 --no-cublas
  done
  san $CS --tool $tool --error-exitcode 9 .device/bundle/tests/gpu_float_pred --test-threads=1
done
$H apsp-gen 1000 8000 --seed 7 -o /tmp/g1000.in > /dev/null; $H apsp-gen 300 2400 --seed 7 -o /tmp/g300.in > /dev/null
for tool in memcheck racecheck synccheck; do
  san $CS --tool $tool --error-exitcode 9 $H apsp-small /tmp/g1000.in --reps 1
  san $CS --tool $tool --error-exitcode 9 $H apsp-small /tmp/g300.in --reps 1
  for kind in successors predecessors; do
    san $CS --tool $tool --error-exitcode 9 $H apsp /tmp/g1000.in -o /tmp/g.out --paths /tmp/g.paths --path-kind $kind --no-peak
  done
done
san $CS --tool memcheck --error-exitcode 9 .device/bundle/tests/gpu_apsp_float --test-threads=1
grep -c "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" $W/san/san.log; grep -E "ERROR SUMMARY: [1-9]|hazards displayed \([1-9]" $W/san/san.log | head
cat $W/san/summary.txt
tar czf "$OUT0/run8.tar.gz" -C $W .
