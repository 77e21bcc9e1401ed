#!/usr/bin/env bash
# Session 16, call 7 (the last ~4 minutes of device time): the TMA-store epilogue with its barrier
# made non-aligned (call 6 hung): edge checks of both store paths, ours (TMA store) against ours
# with register stores (`ds`) and cuBLAS interleaved, then the sm90 GPU tests (4 threads).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
timeout 25 $B/host sm90 --check --no-timing --schedules wgmma,wgmma_ds,wgmma_skl > $O/check.json 2> $O/check.err
rc=$?; echo "check rc $rc" >> $O/log.txt
if [ $rc = 0 ]; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
  smi=$!
  timeout 45 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 5 --reps 20 --check-rows 2 --schedules wgmma,wgmma_ds 4096 > $O/r4096.json 2> $O/r4096.err
  echo "r4096 rc $?" >> $O/log.txt
  timeout 45 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 3 --reps 10 --check-rows 2 --schedules wgmma,wgmma_ds 8192 > $O/r8192.json 2> $O/r8192.err
  echo "r8192 rc $?" >> $O/log.txt
  kill $smi
  timeout 75 $B/tests/gpu_sm90 --test-threads 8 > $O/tests_sm90.txt 2>&1; echo "gpu_sm90 rc $?" >> $O/log.txt
fi
cd $OUT && tar cJf s16_call7.tar.xz w && rm -rf w
tar xJOf s16_call7.tar.xz w/log.txt
tar xJOf s16_call7.tar.xz w/tests_sm90.txt 2>/dev/null | grep "test result"
tar xJOf s16_call7.tar.xz w/check.err | grep -c " ok$"
tar xJOf s16_call7.tar.xz w/check.err | grep -v " ok$" | head -5
for f in r4096 r8192; do tar xJOf s16_call7.tar.xz w/$f.err 2>/dev/null | grep -v "^grid"; done
