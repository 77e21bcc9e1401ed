#!/usr/bin/env bash
# Session 16, call 3: the sm90 GPU tests in full (they take ~125 s), TF32 B row-major by each path
# (split pass, in place, default) with the fast epilogue, and the 16-bit rounds once more.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 250 > $O/clock.csv 2>/dev/null &
smi=$!
timeout 80 $B/host sm90 --inputs tf32 --b n --rounds 5 --reps 10 --check-rows 2 --schedules wgmma,wgmma_inplace,wgmma_split 4096 8192 > $O/tf32n.json 2> $O/tf32n.err
echo "tf32n rc $?" >> $O/log.txt
kill $smi
mkdir -p $O/r; OUT=$O/r S16=wgmma S32=wgmma bash scripts/gpu-sm90-rounds.sh; echo "rounds rc $?" >> $O/log.txt
timeout 200 $B/tests/gpu_sm90 --test-threads 1 > $O/tests_sm90.txt 2>&1; echo "gpu_sm90 rc $?" >> $O/log.txt
cd $OUT && tar cJf s16_call3.tar.xz w && rm -rf w
tar xJOf s16_call3.tar.xz w/log.txt
tar xJOf s16_call3.tar.xz w/tests_sm90.txt | grep "test result"
tar xJOf s16_call3.tar.xz w/tf32n.err | grep -v "^grid"
for f in 4096 8192 tf32; do tar xJOf s16_call3.tar.xz w/r/rounds_$f.err | grep -v "^grid"; done
