#!/usr/bin/env bash
# Session 16, call 2: the fast epilogue (epilogue.rs): edge checks, the sm90 GPU tests, the K sweep
# again, then the rounds script (4096/8192 BF16/FP16 both B, TF32).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 250 > $O/clock.csv 2>/dev/null &
smi=$!
timeout 60 $B/host sm90 --check --no-timing --schedules wgmma,wgmma_skl,wgmma_c2 > $O/check.json 2> $O/check.err
echo "check rc $?" >> $O/log.txt
timeout 60 $B/host sm90 --check --no-timing --inputs tf32 --schedules wgmma,wgmma_skl > $O/check_tf32.json 2> $O/check_tf32.err
echo "check tf32 rc $?" >> $O/log.txt
timeout 90 $B/tests/gpu_sm90 --test-threads 1 > $O/tests_sm90.txt 2>&1; echo "gpu_sm90 rc $?" >> $O/log.txt
timeout 90 $B/tests/gpu_sm90_tf32 --test-threads 1 > $O/tests_tf32.txt 2>&1; echo "gpu_sm90_tf32 rc $?" >> $O/log.txt
timeout 100 $B/host sm90 --inputs bf16 --b n --rounds 5 --reps 10 --check-rows 1 --schedules wgmma \
  4096x4096x1024 4096x4096x2048 4096x4096x4096 4096x4096x8192 4224x4096x4096 > $O/ksweep.json 2> $O/ksweep.err
echo "ksweep rc $?" >> $O/log.txt
kill $smi
mkdir -p $O/r; OUT=$O/r S16=wgmma S32=wgmma,wgmma_dp bash scripts/gpu-sm90-rounds.sh; echo "rounds rc $?" >> $O/log.txt
cd $OUT && tar cJf s16_call2.tar.xz w && rm -rf w
tar xJOf s16_call2.tar.xz w/log.txt
tar xJOf s16_call2.tar.xz w/tests_sm90.txt | grep "test result"
tar xJOf s16_call2.tar.xz w/tests_tf32.txt | grep "test result"
tar xJOf s16_call2.tar.xz w/check.err | tail -3
tar xJOf s16_call2.tar.xz w/check_tf32.err | tail -3
tar xJOf s16_call2.tar.xz w/ksweep.err | grep -v "^grid"
for f in 4096 8192 tf32; do tar xJOf s16_call2.tar.xz w/r/rounds_$f.err | grep -v "^grid"; done
