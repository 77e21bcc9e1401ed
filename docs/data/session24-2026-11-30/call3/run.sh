#!/usr/bin/env bash
# Session 24, call 3: the strip kernel with chain blocks (strips4c: the strips on 4 blocks of
# their own, the other blocks on those SMs leaving) and its trace: GPU tests of the schedules
# and probes first, every schedule at V = 800 … 5000 (10 solves each; a third process for the
# strip kernels), the traces at V = 1000, 1500, 2000, the identity checks and compute-sanitizer
# on the pull and strip kernels at V = 200, on strips4c at V = 1000 (where its chain blocks'
# neighbours leave) and on the probes at V = 200.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
REQUIRE_GPU=1 timeout 200 $B/tests/gpu_apsp_batch --test-threads 1 schedule held persistent zero > $O/tests.log 2>&1; echo "tests rc $?" >> $O/log.txt
grep -E "^test |test result|panicked" $O/tests.log | head -20
REPS=10 CHECK=0 timeout 300 bash scripts/gpu-small.sh $B/host $O/small 800 1000 1500 2000 2500 2750 3000 4000 5000 > $O/small.out 2> $O/small.err; echo "small rc $?" >> $O/log.txt
grep -E "flow32|pull64|strips|SM clock" $O/small.out
for v in 1000 1500 2000; do
  $B/host apsp-gen $v $((v * 40)) --seed 1 -o /tmp/p$v.in > /dev/null
  timeout 60 $B/host apsp-small /tmp/p$v.in --schedule strips4 --schedule strips4c --reps 10 --probe --json > $O/probe_$v.json 2> $O/probe_$v.err; echo "probe_${v} rc $?" >> $O/log.txt
  timeout 60 $B/host apsp-small /tmp/p$v.in --schedule strips4 --schedule strips4c --reps 10 --probe > $O/probe_$v.out 2>> $O/probe_$v.err
  grep -E "trace|closing|phase 2|bulk" $O/probe_$v.out
done
CHECK=1 SANITIZE=1 TESTS=/none timeout 300 bash scripts/gpu-small.sh $B/host $O/check 200 > $O/check.out 2> $O/check.err; echo "check rc $?" >> $O/log.txt
tail -9 $O/check.out
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 150 $CS --tool $tool --error-exitcode 9 $B/host apsp-small /tmp/p1000.in --schedule strips4c --reps 1 > $O/san_strips4c_1000_$tool.out 2>&1; echo "san_strips4c_1000_$tool rc $?" >> $O/log.txt
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $O/san_strips4c_1000_$tool.out
done
$B/host apsp-gen 200 1200 --seed 7 -o /tmp/p200.in > /dev/null
for tool in memcheck racecheck; do
  timeout 120 $CS --tool $tool --error-exitcode 9 $B/host apsp-small /tmp/p200.in --schedule launches --reps 1 --probe > $O/san_probe_$tool.out 2>&1; echo "san_probe_$tool rc $?" >> $O/log.txt
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $O/san_probe_$tool.out
done
kill $smi
cat $O/log.txt
cd $OUT && tar cJf s24_call3.tar.xz w && rm -rf w
