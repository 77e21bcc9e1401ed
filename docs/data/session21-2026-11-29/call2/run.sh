#!/usr/bin/env bash
# Session 21, call 2: the Bellman–Ford launches queued 4 at a time (one flag each): the float GPU
# tests (with `solve_dense` reweighting at REWEIGHT_MIN_V), then `host apsp-float --signed`,
# the general default against `reweighted`, at V = 3000, 4096, 5000, 6144, 8192 (7 repetitions)
# and at 30000 in two processes (3 repetitions, sustained ceilings).
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
for v in 3000 4096 5000 6144 8192; do
  g signed_$v 120 $B/host apsp-float $v --weight f32 --signed --variants default,reweighted --reps 7 --json
done
for p in 1 2; do
  g signed_30000_p$p 240 $B/host apsp-float 30000 --weight f32 --signed --variants default,reweighted --reps 3 --sustained-ceiling --json
done
kill $smi
cd $OUT && tar cJf s21_call2.tar.xz w && rm -rf w
