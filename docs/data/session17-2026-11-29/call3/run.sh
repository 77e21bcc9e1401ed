#!/usr/bin/env bash
# Session 17, call 3: the TMA-store epilogue without debug switches, in the 16-bit kernels and
# the TMA-fed TF32 kernels: a hang guard, the edge checks, ours (TMA store, `wgmma`) against ours
# with register stores (`wgmma_ds`) and cuBLAS interleaved, the sm90 GPU tests, compute-sanitizer.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
g() { # name timeout args...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.json 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
g guard16 15 $B/host sm90 --inputs bf16 --b n --rounds 1 --reps 2 --check-rows 4 --schedules wgmma 256
g guard32 15 $B/host sm90 --inputs tf32 --b n,k --rounds 1 --reps 2 --check-rows 4 --schedules wgmma 256
if grep -q "guard16 rc 0" $O/log.txt && grep -q "guard32 rc 0" $O/log.txt; then
  g check 70 $B/host sm90 --check --no-timing --schedules wgmma,wgmma_ds,wgmma_skl
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
  smi=$!
  g r4096 120 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 7 --reps 20 --check-rows 2 --schedules wgmma,wgmma_ds 4096
  g t4096 120 $B/host sm90 --inputs tf32 --b n,k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma,wgmma_ds 4096 8192
  g r8192 120 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma,wgmma_ds 8192
  kill $smi
  for tool in memcheck racecheck; do
    g san16_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host sm90 --inputs bf16 --b n,k --rounds 1 --reps 1 --check-rows 2 --schedules wgmma 256 300x520x200
    g san32_$tool 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/host sm90 --inputs tf32 --b n,k --rounds 1 --reps 1 --check-rows 2 --schedules wgmma 256 300x520x200
  done
  g tests_sm90 170 $B/tests/gpu_sm90 --test-threads 4
  g tests_tf32 120 $B/tests/gpu_sm90_tf32 --test-threads 4
fi
cd $OUT && tar cJf s17_call3.tar.xz w && rm -rf w
tar xJOf s17_call3.tar.xz w/log.txt
tar xJOf s17_call3.tar.xz w/tests_sm90.err w/tests_sm90.json w/tests_tf32.json 2>/dev/null | grep "test result"
tar xJOf s17_call3.tar.xz w/check.err | grep -c " ok$"
tar xJOf s17_call3.tar.xz w/check.err | grep -v " ok$" | head -5
for f in r4096 t4096 r8192; do tar xJOf s17_call3.tar.xz w/$f.err | grep -v "^grid"; done
for f in san16_memcheck san16_racecheck san32_memcheck san32_racecheck; do tar xJOf s17_call3.tar.xz w/$f.json | grep "SUMMARY"; done
