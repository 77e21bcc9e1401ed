#!/usr/bin/env bash
# Session 22, call 1: the closure at S steps per barrier (small_close.rs) in every persistent
# kernel, and the chain's probes: `scripts/gpu-small.sh` with PROBE=1 CHECK=1 SANITIZE=1 at V =
# 128 … 5000 (every schedule, 10 solves each, plain and held), then compute-sanitizer on the
# probe kernels (`--probe` at V = 200).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
REPS=10 PROBE=1 CHECK=1 SANITIZE=1 TESTS=$B/tests timeout 480 bash scripts/gpu-small.sh $B/host $O/small 128 1000 1500 2000 2500 3000 4000 5000 > $O/small.out 2> $O/small.err; echo "small rc $?" >> $O/log.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer | head -1)
$B/host apsp-gen 200 1200 --seed 7 -o /tmp/z.in > /dev/null
for tool in memcheck racecheck; do
  timeout 60 $CS --tool $tool --error-exitcode 9 $B/host apsp-small /tmp/z.in --schedule pull64 --reps 1 --probe > $O/san_probe_$tool.out 2>&1; echo "san_probe_$tool rc $?" >> $O/log.txt
done
cd $OUT && tar cJf s22_call1.tar.xz w && rm -rf w
