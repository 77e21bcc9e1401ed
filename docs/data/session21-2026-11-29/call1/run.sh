#!/usr/bin/env bash
# Session 21, call 1: Johnson's reweighting for signed f32 matrices (`Plan::Reweighted`): the
# float GPU tests (the four new reweighting tests among them), compute-sanitizer memcheck and
# racecheck of the new kernels (through the tests), then `host apsp-float --signed` at V =
# 30000 (the general default against `reweighted`, 3 repetitions, sustained ceilings) and at
# V = 4096 / 8192 / 12000 (5 repetitions), the same with positive weights at 30000 (`nonneg`,
# to compare with the reweighted solve of the signed graph).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
g() { # name timeout cmd...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.out 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
REQUIRE_GPU=1 g tests 200 $B/tests/gpu_apsp_float --test-threads=1
for tool in memcheck racecheck; do
  for k in apsp_potential_f32 apsp_reweight_f32; do
    REQUIRE_GPU=1 g san_${tool}_$k 150 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=$k $B/tests/gpu_apsp_float --test-threads=1 reweight
  done
done
g signed_30000 240 $B/host apsp-float 30000 --weight f32 --signed --variants default,reweighted --reps 3 --sustained-ceiling --json
for v in 4096 8192 12000; do
  g signed_$v 120 $B/host apsp-float $v --weight f32 --signed --variants default,reweighted --reps 5 --json
done
g positive_30000 120 $B/host apsp-float 30000 --weight f32 --variants default,nonneg --reps 3 --json
kill $smi
cd $OUT && tar cJf s21_call1.tar.xz w && rm -rf w
