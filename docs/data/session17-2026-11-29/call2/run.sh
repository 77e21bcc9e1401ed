#!/usr/bin/env bash
# Session 17, call 2: the TMA-store epilogue (RGK_EPI_DBG unset: the full path) — edge checks of
# both store paths, ours (TMA store, `wgmma`) against ours with register stores (`wgmma_ds`) and
# cuBLAS interleaved at 4096 and 8192, the sm90 GPU tests.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
s=$(date +%s)
timeout 60 $B/host sm90 --check --no-timing --schedules wgmma,wgmma_ds,wgmma_skl > $O/check.json 2> $O/check.err
echo "check rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
timeout 120 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 7 --reps 20 --check-rows 2 --schedules wgmma,wgmma_ds 4096 > $O/r4096.json 2> $O/r4096.err
echo "r4096 rc $?" >> $O/log.txt
timeout 120 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma,wgmma_ds 8192 > $O/r8192.json 2> $O/r8192.err
echo "r8192 rc $?" >> $O/log.txt
kill $smi
timeout 170 $B/tests/gpu_sm90 --test-threads 4 > $O/tests_sm90.txt 2>&1; echo "gpu_sm90 rc $?" >> $O/log.txt
cd $OUT && tar cJf s17_call2.tar.xz w && rm -rf w
tar xJOf s17_call2.tar.xz w/log.txt
tar xJOf s17_call2.tar.xz w/tests_sm90.txt | grep "test result"
tar xJOf s17_call2.tar.xz w/check.err | grep -c " ok$"
tar xJOf s17_call2.tar.xz w/check.err | grep -v " ok$" | head -5
for f in r4096 r8192; do tar xJOf s17_call2.tar.xz w/$f.err | grep -v "^grid"; done
