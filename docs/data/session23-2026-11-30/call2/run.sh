#!/usr/bin/env bash
# Session 23, call 2: the closure by quadrants with the warp closure software-pipelined (pull64, pull64x8 and the probes c4q, c8q, the
# traced pull kernel by quadrants beside the one at 4 steps per barrier): GPU tests of the
# schedules and probes first (a hang shows here), then every schedule at V = 1000 … 5000
# (10 solves each), the probes at V = 1000 and 2000, compute-sanitizer on the pull kernels.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
REQUIRE_GPU=1 timeout 150 $B/tests/gpu_apsp_batch --test-threads 1 schedule held persistent zero > $O/tests.log 2>&1; echo "tests rc $?" >> $O/log.txt
grep -E "^test |test result" $O/tests.log
REPS=10 CHECK=0 timeout 150 bash scripts/gpu-small.sh $B/host $O/small 1000 1500 2000 2500 3000 4000 5000 > $O/small.out 2> $O/small.err; echo "small rc $?" >> $O/log.txt
cat $O/small.out
REPS=10 CHECK=0 timeout 60 bash scripts/gpu-small.sh $B/host $O/small_again 1000 2000 > $O/small_again.out 2> $O/small_again.err; echo "small_again rc $?" >> $O/log.txt
grep -E "pull64" $O/small_again.out
for v in 1000 2000; do
  $B/host apsp-gen $v $((v * 40)) --seed 1 -o /tmp/p$v.in > /dev/null
  timeout 30 $B/host apsp-small /tmp/p$v.in --schedule pull64 --schedule pull64x8 --reps 10 --probe --json > $O/probe_$v.json 2> $O/probe_$v.err; echo "probe_${v} rc $?" >> $O/log.txt
  timeout 30 $B/host apsp-small /tmp/p$v.in --schedule pull64 --schedule pull64x8 --reps 10 --probe > $O/probe_$v.out 2>> $O/probe_$v.err
  grep -E "probe|trace" $O/probe_$v.out
done
CHECK=1 SANITIZE=1 TESTS=$B/tests timeout 200 bash scripts/gpu-small.sh $B/host $O/check 200 > $O/check.out 2> $O/check.err; echo "check rc $?" >> $O/log.txt
tail -5 $O/check.out
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer | head -1)
$B/host apsp-gen 128 5120 --seed 1 -o /tmp/p128.in > /dev/null
for tool in memcheck racecheck; do
  timeout 60 $CS --tool $tool --error-exitcode 9 $B/host apsp-small /tmp/p128.in --schedule launches --reps 1 --probe > $O/san_probe_$tool.out 2>&1; echo "san_probe_$tool rc $?" >> $O/log.txt
done
kill $smi
cat $O/log.txt
cd $OUT && tar cJf s23_call2.tar.xz w && rm -rf w
