#!/usr/bin/env bash
# Session 16, call 4: with the fast epilogue, do other schedules win at 4096 (stream-K sk/skl,
# depth 1, pairs)? Ours and cuBLAS interleaved, 7 rounds of 20.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
timeout 150 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 7 --reps 20 --check-rows 1 --schedules wgmma,wgmma_skl,wgmma_sk,wgmma_w1,wgmma_c2 4096 > $O/s4096.json 2> $O/s4096.err
echo "s4096 rc $?" >> $O/log.txt
kill $smi
cd $OUT && tar cJf s16_call4.tar.xz w && rm -rf w
tar xJOf s16_call4.tar.xz w/log.txt
tar xJOf s16_call4.tar.xz w/s4096.err | grep -v "^grid"
