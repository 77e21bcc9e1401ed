#!/usr/bin/env bash
# Session 17, call 11: the session's last code commit once more: TF32 with B row-major (the new
# split pass) and transposed at 4096 and 8192, BF16/FP16 at 4096 and 8192, against cuBLAS of the
# same precision, interleaved rounds.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
g() { local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.json 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt; }
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
g t4096 120 $B/host sm90 --inputs tf32 --b n,k --rounds 7 --reps 10 --check-rows 2 --schedules wgmma 4096
g t8192 120 $B/host sm90 --inputs tf32 --b n,k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma 8192
g r4096 120 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 7 --reps 20 --check-rows 2 --schedules wgmma 4096
g r8192 120 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma 8192
kill $smi
cd $OUT && tar cJf s17_call11.tar.xz w && rm -rf w
tar xJOf s17_call11.tar.xz w/log.txt
for f in t4096 t8192 r4096 r8192; do tar xJOf s17_call11.tar.xz w/$f.err | grep -v "^grid"; done
