#!/usr/bin/env bash
# Session 6, device call 2 (nvidia-h200): the merged main's GPU tests (scripts/gpu-run.sh check),
# then compute-sanitizer memcheck and racecheck on this session's new kernels and routes, each
# at an aligned and an odd shape: the mma.sync w64/t128 kernels, the batched a8/a16/a32 kernels
# and the thin split, the in-kernel split-K routes (gpu_route), the sm_90a stream-K schedules,
# the float phase-3 variants, the shared init geometry (apsp with --paths).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
W=/tmp/w2; mkdir -p $W/check $W/san
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 500 > $W/clock.csv & CL=$!
( OUT=$W/check TEST_TIMEOUT=150 timeout 330 scripts/gpu-run.sh check ) > $W/check.log 2>&1
echo "check rc $?"; grep -E "^FAILED|panicked" $W/check.log | head -20; tail -4 $W/check.log
tar czf "$OUT0/s6run2.tar.gz" -C $W .
CS=compute-sanitizer
san() { echo "+ $*" >> $W/san/san.log; timeout 60 "$@" >> $W/san/san.log 2>&1; echo "rc $? : $*" >> $W/san/summary.txt; }
$H apsp-gen 300 2400 --seed 3 -o /tmp/g300.in > /dev/null
for tool in memcheck racecheck; do
  for k in $($H info | sed -n 's/^  \(tc_\(bf16\|fp16\)_rr_[a-z0-9_]*w64[a-z0-9_]*\) .*/\1/p'); do
    p=${k#tc_}; p=${p%%_*}
    san $CS --tool $tool --error-exitcode 9 $H matmul 256 --precision $p --kernel $k --reps 1 --no-cublas
    san $CS --tool $tool --error-exitcode 9 $H matmul --m 17 --n 40 --k 24 --precision $p --kernel $k --reps 1 --no-cublas
  done
  for k in sgemm_batched_a8 sgemm_batched_a16 sgemm_batched_a32; do
    san $CS --tool $tool --error-exitcode 9 $H matmul --m 8 --n 8 --k 8 --batch 67 --kernel $k --reps 1 --no-cublas
    san $CS --tool $tool --error-exitcode 9 $H matmul --m 7 --n 5 --k 19 --batch 70 --stride-a 140 --stride-b 101 --stride-c 37 --kernel $k --reps 1 --no-cublas
  done
  san $CS --tool $tool --error-exitcode 9 $H matmul --m 1000 --n 24 --k 4097 --reps 1 --no-cublas
  san $CS --tool $tool --error-exitcode 9 $H matmul --m 2048 --n 40 --k 2048 --reps 1 --no-cublas
  san $CS --tool $tool --error-exitcode 9 $B/tests/gpu_route in_kernel_splits --test-threads 1
  san $CS --tool $tool --error-exitcode 9 $H sm90 --check --no-timing --schedules wgmma_w0_p_sk,wgmma_w0_p_skl1
  for w in f32 f64; do
    san $CS --tool $tool --error-exitcode 9 $H apsp-float 300 --weight $w --variants all --rounds 2 --reps 1
  done
  san $CS --tool $tool --error-exitcode 9 $H apsp /tmp/g300.in -o /tmp/g300.out --paths /tmp/g300.paths
done
san $CS --tool synccheck --error-exitcode 9 $H sm90 --check --no-timing --schedules wgmma_w0_p_sk,wgmma_w0_p_skl1
kill $CL
grep -c "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" $W/san/san.log; grep -E "ERROR SUMMARY: [1-9]|hazards displayed \([1-9]" $W/san/san.log | head
awk '$2 != 0' $W/san/summary.txt | head; wc -l < $W/san/summary.txt
tar czf "$OUT0/s6run2.tar.gz" -C $W .
