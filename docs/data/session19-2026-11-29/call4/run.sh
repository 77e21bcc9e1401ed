#!/usr/bin/env bash
# Session 19, call 4: the flow/pull order with round r + 1's phase 2 moved before round r's bulk
# (phase 3 of the rest): every small-graph schedule at V = 1000 ... 5000 (scripts/gpu-small.sh:
# 10 solves each, plain and held), the schedules' GPU tests, every schedule identical to the
# launches at six V and two B, compute-sanitizer on the pull kernels.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
CHECK=1 SANITIZE=1 TESTS=$B/tests bash scripts/gpu-small.sh $B/host $O/small 1000 1500 2000 2500 3000 4000 5000 > $O/small.log 2>&1
echo "gpu-small rc $?" >> $O/log.txt
cd $OUT && tar cJf s19_call4.tar.xz w && rm -rf w
tar xJOf s19_call4.tar.xz w/log.txt
tar xJOf s19_call4.tar.xz w/small.log | grep -E "pull64 |pull64x8 |flow64 |flow32 |pull32 |identical:|SUMMARY|test result|FAILED|SM clock"
