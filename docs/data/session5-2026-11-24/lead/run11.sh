#!/usr/bin/env bash
# Device call 11 (session 5, nvidia-h200): every GPU test of the merged main, then
# compute-sanitizer on this session's new kernels (split-K sum, transpose pre-pass, batched_small,
# the sm_90a pipeline, the split path kernels).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
W=/tmp/w11; mkdir -p $W/check $W/san
( OUT=$W/check TEST_TIMEOUT=150 timeout 330 scripts/gpu-run.sh check ) > $W/check.log 2>&1
echo "check rc $?"; grep -E "^FAILED|panicked" $W/check.log | head -20; tail -4 $W/check.log
tar czf "$OUT0/run11.tar.gz" -C $W .
CS=compute-sanitizer
san() { echo "+ $*" >> $W/san/san.log; timeout 40 "$@" >> $W/san/san.log 2>&1; echo "rc $? : $*" >> $W/san/summary.txt; }
for tool in memcheck racecheck; do
  for shape in "--m 128 --n 128 --k 16384" "--m 131 --n 67 --k 5001" "--m 1000 --n 777 --k 1025 --trans-a" "--m 1000 --n 777 --k 1025 --trans-b" "--m 333 --n 555 --k 777 --trans-a --trans-b" "--m 32 --n 32 --k 32 --batch 64" "--m 17 --n 29 --k 13 --batch 7 --stride-a 500 --stride-b 400 --stride-c 600" "--m 1 --n 4096 --k 4096" "--m 5000 --n 7 --k 500"; do
    # shellcheck disable=SC2086
    san $CS --tool $tool --error-exitcode 9 $H matmul $shape --reps 1 --no-cublas
  done
  san $CS --tool $tool --error-exitcode 9 $H sm90 --check --no-timing
  for p in tf32 3xtf32 bf16; do
    san $CS --tool $tool --error-exitcode 9 $H matmul --m 777 --n 1000 --k 520 --precision $p --reps 1 --no-cublas
  done
done
echo "+ memcheck gpu_route" >> $W/san/san.log
timeout 200 $CS --tool memcheck --error-exitcode 9 $B/tests/gpu_route --test-threads=1 >> $W/san/san.log 2>&1; echo "rc $? : memcheck tests/gpu_route" >> $W/san/summary.txt
grep -c "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" $W/san/san.log; grep -E "ERROR SUMMARY: [1-9]|hazards displayed \([1-9]" $W/san/san.log | head
cat $W/san/summary.txt
tar czf "$OUT0/run11.tar.gz" -C $W .
