#!/usr/bin/env bash
# Device call 6: after the 16-byte-tail fix, the SGEMM GPU tests and compute-sanitizer on the
# transposing/batched kernels (flagship_ops), the skinny kernels and the tensor-core kernels.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
export REQUIRE_GPU=1 HOST_BIN=$H
W=/tmp/w6; mkdir -p $W
for t in gpu_blas gpu_sgemm gpu_tc gpu_sm90; do timeout 120 $B/tests/$t --test-threads=1 2>&1 | grep -E "test result|FAILED|panicked"; done
CS=compute-sanitizer
for k in $($H info | sed -n 's/^  \(sgemm_[nt][nt]_[a-z0-9_]*\) .*/\1/p'); do
  for shape in "--m 17 --n 33 --k 5" "--m 256 --n 256 --k 256"; do
    $CS --tool memcheck --error-exitcode 9 $H matmul $shape --kernel $k --reps 1 --no-cublas > $W/mc.log 2>&1 || echo "memcheck FAILED $k $shape"
    grep -h "ERROR SUMMARY" $W/mc.log >> $W/summary.txt
  done
done
for t in "" --trans-a --trans-b "--trans-a --trans-b"; do
  $CS --tool memcheck --error-exitcode 9 $H matmul --m 67 --n 45 --k 33 $t --batch 3 --stride-a 3001 --stride-b 2003 --stride-c 3100 --reps 1 --no-cublas > $W/mc.log 2>&1 || echo "memcheck FAILED batch $t"
  grep -h "ERROR SUMMARY" $W/mc.log >> $W/summary.txt
  $CS --tool racecheck --error-exitcode 9 $H matmul --m 67 --n 45 --k 33 $t --batch 3 --stride-a 3001 --stride-b 2003 --stride-c 3100 --reps 1 --no-cublas > $W/rc.log 2>&1 || echo "racecheck FAILED batch $t"
  grep -h "RACECHECK SUMMARY\|ERROR SUMMARY" $W/rc.log >> $W/summary.txt
done
for k in $($H info | sed -n 's/^  \(tc_[a-z0-9_]*_rr_[a-z0-9_]*\) .*/\1/p'); do
  p=$(echo "$k" | sed 's/^tc_\(bf16\|fp16\|tf32x3\|tf32\)_.*/\1/; s/tf32x3/3xtf32/')
  for tool in memcheck racecheck; do
    $CS --tool $tool --error-exitcode 9 $H matmul --m 17 --n 40 --k 24 --precision $p --kernel $k --reps 1 --no-cublas > $W/tc.log 2>&1 || echo "$tool FAILED $k"
    grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $W/tc.log >> $W/summary.txt
  done
done
sort $W/summary.txt | uniq -c
cp $W/summary.txt "$OUT0/sanitize_summary.txt"
