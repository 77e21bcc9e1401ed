#!/usr/bin/env bash
# Session 18, call 1: the in-place TF32 kernel (transposed product, B row-major read as it lies)
# with one producer warp (288 threads, 224 registers, no setmaxnreg) and whole-slice fragments,
# at depth 0 and 1, against the split path and cuBLAS TF32; the TF32 GPU tests.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
g() { # name timeout args...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.json 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
g guard 20 $B/host sm90 --inputs tf32 --b n --rounds 1 --reps 2 --check-rows 4 --schedules wgmma_inplace,wgmma_inplace_w1 256 300x520x200
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
if grep -q "guard rc 0" $O/log.txt; then
  g t4096 150 $B/host sm90 --inputs tf32 --b n --rounds 7 --reps 10 --check-rows 2 --schedules wgmma,wgmma_inplace,wgmma_inplace_w1 4096
  g t8192 150 $B/host sm90 --inputs tf32 --b n --rounds 5 --reps 10 --check-rows 2 --schedules wgmma,wgmma_inplace,wgmma_inplace_w1 8192
  g k4096 60 $B/host sm90 --inputs tf32 --b k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma 4096
fi
kill $smi
g tests_tf32 170 $B/tests/gpu_sm90_tf32 --test-threads 4
cd $OUT && tar cJf s18_call1.tar.xz w && rm -rf w
tar xJOf s18_call1.tar.xz w/log.txt
tar xJOf s18_call1.tar.xz w/tests_tf32.json | grep "test result\|FAILED\|panicked" | head -8
for f in guard t4096 t8192 k4096; do echo "== $f"; tar xJOf s18_call1.tar.xz w/$f.err | grep -v "^grid" | tail -30; done
