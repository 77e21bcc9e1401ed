#!/usr/bin/env bash
# Session 16, call 1: where the one-block wgmma kernel loses at 4096 (K sweep at m = n = 4096,
# whole-wave M, ours and cuBLAS interleaved) and the per-SASS stall samples of session 15's ncu report.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $O/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 250 > $O/clock.csv 2>/dev/null &
smi=$!
timeout 150 $B/host sm90 --inputs bf16 --b n --rounds 5 --reps 10 --check-rows 1 --schedules wgmma,wgmma_w0_p_dp \
  4096x4096x1024 4096x4096x2048 4096x4096x4096 4096x4096x8192 4096x4096x16384 4224x4096x4096 4224x4096x8192 > $O/ksweep.json 2> $O/ksweep.err
echo "ksweep rc $?" >> $O/log.txt
kill $smi
mkdir -p /tmp/rep && tar -C /tmp/rep -xJf docs/data/session15-2026-11-29/call2/reps.tar.xz
ncu --import /tmp/rep/sm90.ncu-rep --page source --csv --print-source sass -k wgmma_bf16_bn_128x256x64_s4 > $O/src_one.csv 2> $O/src_one.err
echo "src rc $?" >> $O/log.txt
ncu --import /tmp/rep/sm90.ncu-rep --page raw --csv -k wgmma_bf16_bn_128x256x64_s4 > $O/raw_one.csv 2>&1
cd $OUT && tar cJf s16_call1.tar.xz w && rm -rf w
tar xJOf s16_call1.tar.xz w/ksweep.err | tail -40
tar xJOf s16_call1.tar.xz w/log.txt
tar xJOf s16_call1.tar.xz w/src_one.csv | head -3 | cut -c1-400
