#!/usr/bin/env bash
# Session 16, call 6: the TMA-store epilogue (one-block 16-bit kernels, beta 0): edge checks of
# both store paths, ours (TMA store) against ours with register stores (`ds`) and cuBLAS
# interleaved at 4096 and 8192, the K sweep, compute-sanitizer, the sm90 GPU tests.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
timeout 60 $B/host sm90 --check --no-timing --schedules wgmma,wgmma_ds,wgmma_skl > $O/check.json 2> $O/check.err
echo "check rc $?" >> $O/log.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
timeout 90 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 7 --reps 20 --check-rows 2 --schedules wgmma,wgmma_ds 4096 > $O/r4096.json 2> $O/r4096.err
echo "r4096 rc $?" >> $O/log.txt
timeout 90 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma,wgmma_ds 8192 > $O/r8192.json 2> $O/r8192.err
echo "r8192 rc $?" >> $O/log.txt
timeout 60 $B/host sm90 --inputs bf16 --b n --rounds 5 --reps 10 --check-rows 1 --schedules wgmma,wgmma_ds \
  4096x4096x1024 4096x4096x2048 4224x4096x4096 > $O/ksweep.json 2> $O/ksweep.err
echo "ksweep rc $?" >> $O/log.txt
kill $smi
CS=compute-sanitizer
for tool in memcheck racecheck; do
  timeout 60 $CS --tool $tool --error-exitcode 9 $B/host sm90 --check --no-timing --schedules wgmma > $O/san_$tool.txt 2>&1; echo "san $tool rc $?" >> $O/log.txt
done
timeout 150 $B/tests/gpu_sm90 --test-threads 4 > $O/tests_sm90.txt 2>&1; echo "gpu_sm90 rc $?" >> $O/log.txt
cd $OUT && tar cJf s16_call6.tar.xz w && rm -rf w
tar xJOf s16_call6.tar.xz w/log.txt
tar xJOf s16_call6.tar.xz w/tests_sm90.txt | grep "test result"
tar xJOf s16_call6.tar.xz w/check.err | grep -vc " ok$"
tar xJOf s16_call6.tar.xz w/check.err | grep -v " ok$" | head -5
for f in r4096 r8192 ksweep; do tar xJOf s16_call6.tar.xz w/$f.err | grep -v "^grid"; done
for t in memcheck racecheck; do tar xJOf s16_call6.tar.xz w/san_$t.txt | grep -E "SUMMARY" ; done
