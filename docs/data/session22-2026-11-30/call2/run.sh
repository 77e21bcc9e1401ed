#!/usr/bin/env bash
# Session 22, call 2 (call 1 hung in the probe kernels: a barrier duplicated into divergent
# paths, fixed with branch-free stamps): every schedule at V = 1000 … 5000 with the closure at
# 4 steps per barrier (`scripts/gpu-small.sh`, 10 solves each, plain and held), the chain's
# probes (`apsp-small --probe`) at V = 128, 1000, 2000, 5000, then the schedules' GPU tests
# (the probes' among them), the identity lines and compute-sanitizer on the pull kernels and
# the probes.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
REPS=10 CHECK=0 timeout 150 bash scripts/gpu-small.sh $B/host $O/small 1000 1500 2000 2500 3000 4000 5000 > $O/small.out 2> $O/small.err; echo "small rc $?" >> $O/log.txt
for v in 128 1000 2000 5000; do
  $B/host apsp-gen $v $((v * 40)) --seed 1 -o /tmp/p$v.in > /dev/null
  timeout 20 $B/host apsp-small /tmp/p$v.in --schedule launches --schedule pull64 --schedule pull64x8 --reps 10 --probe > $O/probe_$v.out 2> $O/probe_$v.err; echo "probe_$v rc $?" >> $O/log.txt
  timeout 20 $B/host apsp-small /tmp/p$v.in --schedule pull64 --reps 10 --probe --json > $O/probe_$v.json 2>> $O/probe_$v.err; echo "probe_${v}_json rc $?" >> $O/log.txt
done
CHECK=1 SANITIZE=1 TESTS=$B/tests timeout 180 bash scripts/gpu-small.sh $B/host $O/check 200 > $O/check.out 2> $O/check.err; echo "check rc $?" >> $O/log.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 40 $CS --tool $tool --error-exitcode 9 $B/host apsp-small /tmp/p128.in --schedule launches --reps 1 --probe > $O/san_probe_$tool.out 2>&1; echo "san_probe_$tool rc $?" >> $O/log.txt
done
kill $smi
cd $OUT && tar cJf s22_call2.tar.xz w && rm -rf w
