#!/usr/bin/env bash
# Session 21, call 5: the second review commit (one builder of the reweighted plan): the float
# GPU tests, and `host apsp-float 6144 --signed --variants default,reweighted` (3 repetitions)
# for the CLI's reweighted variant.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
REQUIRE_GPU=1 timeout 200 $B/tests/gpu_apsp_float --test-threads=1 > $O/tests.out 2> $O/tests.err; echo "tests rc $?" >> $O/log.txt
timeout 120 $B/host apsp-float 6144 --weight f32 --signed --variants default,reweighted --reps 3 > $O/signed_6144.out 2> $O/signed_6144.err; echo "signed_6144 rc $?" >> $O/log.txt
cd $OUT && tar cJf s21_call5.tar.xz w && rm -rf w
