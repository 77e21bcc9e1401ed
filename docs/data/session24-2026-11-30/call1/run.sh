#!/usr/bin/env bash
# Session 24, call 1: the strip kernels (strips2, strips4: each round's chain in row
# strips, the last strip closing the next pivot block): GPU tests of the schedules first (a hang
# shows here), then every schedule at V = 1000 … 3000 (10 solves each, plain and held), the
# identity checks and compute-sanitizer on the pull and strip kernels at V = 200.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
REQUIRE_GPU=1 timeout 200 $B/tests/gpu_apsp_batch --test-threads 1 schedule held persistent zero > $O/tests.log 2>&1; echo "tests rc $?" >> $O/log.txt
grep -E "^test |test result|panicked" $O/tests.log | head -20
REPS=10 CHECK=0 timeout 200 bash scripts/gpu-small.sh $B/host $O/small 1000 1500 2000 2500 3000 > $O/small.out 2> $O/small.err; echo "small rc $?" >> $O/log.txt
cat $O/small.out
CHECK=1 SANITIZE=1 TESTS=/none timeout 240 bash scripts/gpu-small.sh $B/host $O/check 200 > $O/check.out 2> $O/check.err; echo "check rc $?" >> $O/log.txt
tail -8 $O/check.out
cat $O/log.txt
cd $OUT && tar cJf s24_call1.tar.xz w && rm -rf w
