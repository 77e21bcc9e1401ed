#!/usr/bin/env bash
# Session 22, call 5: the review's host changes (one cooperative launch helper for the
# persistent schedules, the probes and the empty-launch floor; one median; the trace summary in
# one pass): the schedules' GPU tests (the probes' among them) and `apsp-small --probe` at
# V = 1000 (launches, pull64; 10 runs each).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
REQUIRE_GPU=1 timeout 150 $B/tests/gpu_apsp_batch --test-threads 1 schedule held persistent > $O/tests.out 2>&1; echo "tests rc $?" >> $O/log.txt
$B/host apsp-gen 1000 40000 --seed 1 -o /tmp/p1000.in > /dev/null
timeout 60 $B/host apsp-small /tmp/p1000.in --schedule launches --schedule pull64 --reps 10 --probe > $O/probe_1000.out 2>&1; echo "probe_1000 rc $?" >> $O/log.txt
cd $OUT && tar cJf s22_call5.tar.xz w && rm -rf w
