#!/usr/bin/env bash
# Session 18, call 3: TF32 with B row-major, the library's default now in place
# (wgmma_tf32_kn_256x128x32_s4w1: each k8 step retired while the next runs) against the split
# pass and cuBLAS TF32, three processes per size; B transposed for reference; GPU tests.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
g() { # name timeout args...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.json 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
g guard 20 $B/host sm90 --inputs tf32 --b n --rounds 1 --reps 2 --check-rows 4 --schedules wgmma,wgmma_split 256 300x520x200
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
if grep -q "guard rc 0" $O/log.txt; then
  for p in 1 2 3; do
    g t4096_p$p 120 $B/host sm90 --inputs tf32 --b n --rounds 9 --reps 10 --check-rows 2 --schedules wgmma,wgmma_split 4096
    g t8192_p$p 150 $B/host sm90 --inputs tf32 --b n --rounds 5 --reps 10 --check-rows 2 --schedules wgmma,wgmma_split 8192
  done
  g k4096 60 $B/host sm90 --inputs tf32 --b k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma 4096
  g lib4096 60 $B/host matmul 4096 --precision tf32 --reps 20 --verify sample --json
fi
kill $smi
g tests_tf32 170 $B/tests/gpu_sm90_tf32 --test-threads 4
g tests_sm90 200 $B/tests/gpu_sm90 --test-threads 4
g tests_tc 200 $B/tests/gpu_tc --test-threads 4
cd $OUT && tar cJf s18_call3.tar.xz w && rm -rf w
tar xJOf s18_call3.tar.xz w/log.txt
for t in tests_tf32 tests_sm90 tests_tc; do tar xJOf s18_call3.tar.xz w/$t.json | grep "test result\|FAILED\|panicked" | head -5; done
for f in guard t4096_p1 t8192_p1 t4096_p2 t8192_p2 t4096_p3 t8192_p3 k4096; do tar xJOf s18_call3.tar.xz w/$f.err | grep -v "^grid" | grep "%"; done
tar xJOf s18_call3.tar.xz w/lib4096.json | head -c 600
