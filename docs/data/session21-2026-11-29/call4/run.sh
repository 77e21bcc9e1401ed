#!/usr/bin/env bash
# Session 21, call 4: the review commit 4e88a01 (test helpers shared, assertions unchanged): the
# float GPU tests, and compute-sanitizer memcheck of the two new kernels over the reweighting
# tests once more.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
REQUIRE_GPU=1 timeout 200 $B/tests/gpu_apsp_float --test-threads=1 > $O/tests.out 2> $O/tests.err; echo "tests rc $?" >> $O/log.txt
for k in apsp_potential_f32 apsp_reweight_f32; do
  REQUIRE_GPU=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 --kernel-name kns=$k $B/tests/gpu_apsp_float --test-threads=1 reweight > $O/san_memcheck_$k.out 2> $O/san_memcheck_$k.err; echo "san_memcheck_$k rc $?" >> $O/log.txt
done
cd $OUT && tar cJf s21_call4.tar.xz w && rm -rf w
