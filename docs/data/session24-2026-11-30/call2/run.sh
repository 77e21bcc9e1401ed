#!/usr/bin/env bash
# Session 24, call 2: the strip kernels again (a second process) and the traced strip kernel
# (`fw_strip_b64s4_trace`) beside the traced pull kernel: GPU tests of the schedules and probes
# first, then every schedule at V = 800 … 3000 (10 solves each), the probes and traces at V =
# 1000, 1500 and 2000, compute-sanitizer on the probes (the traced strip kernel among them).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
REQUIRE_GPU=1 timeout 200 $B/tests/gpu_apsp_batch --test-threads 1 schedule held persistent zero > $O/tests.log 2>&1; echo "tests rc $?" >> $O/log.txt
grep -E "^test |test result|panicked" $O/tests.log | head -20
REPS=10 CHECK=0 timeout 240 bash scripts/gpu-small.sh $B/host $O/small 800 1000 1500 2000 2500 2750 3000 > $O/small.out 2> $O/small.err; echo "small rc $?" >> $O/log.txt
grep -E "pull64|strips|flow64|SM clock" $O/small.out
for v in 1000 1500 2000; do
  $B/host apsp-gen $v $((v * 40)) --seed 1 -o /tmp/p$v.in > /dev/null
  timeout 60 $B/host apsp-small /tmp/p$v.in --schedule pull64 --schedule strips4 --reps 10 --probe --json > $O/probe_$v.json 2> $O/probe_$v.err; echo "probe_${v} rc $?" >> $O/log.txt
  timeout 60 $B/host apsp-small /tmp/p$v.in --schedule pull64 --schedule strips4 --reps 10 --probe > $O/probe_$v.out 2>> $O/probe_$v.err
  grep -E "trace|closing|phase 2|bulk" $O/probe_$v.out
done
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer | head -1)
$B/host apsp-gen 200 1200 --seed 7 -o /tmp/p200.in > /dev/null
for tool in memcheck racecheck; do
  timeout 120 $CS --tool $tool --error-exitcode 9 $B/host apsp-small /tmp/p200.in --schedule launches --reps 1 --probe > $O/san_probe_$tool.out 2>&1; echo "san_probe_$tool rc $?" >> $O/log.txt
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $O/san_probe_$tool.out
done
kill $smi
cat $O/log.txt
cd $OUT && tar cJf s24_call2.tar.xz w && rm -rf w
