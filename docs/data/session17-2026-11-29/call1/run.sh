#!/usr/bin/env bash
# Session 17, call 1: the TMA-store epilogue's hang, bisected with RGK_EPI_DBG bits
# (1 no TMA store, 2 no read wait, 4 no final wait, 8 no barrier, 16 epilogue returns at once,
# 32 register stores with everything else of the TMA path set up).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> $O/log.txt
run() { # dbg size timeout
  s=$(date +%s%N)
  RGK_EPI_DBG=$1 timeout $3 $B/host sm90 --inputs bf16 --b n --rounds 1 --reps 2 --check-rows 4 --schedules wgmma $2 > $O/d$1_$2.json 2> $O/d$1_$2.err
  echo "dbg $1 size $2 rc $? ms $(( ($(date +%s%N) - s) / 1000000 ))" >> $O/log.txt
}
for d in 32 16 1 6 2 4 8 0; do run $d 256 12; done
grep -q "dbg 0 size 256 rc 0" $O/log.txt && { run 0 4096 30; run 32 4096 30; }
RGK_EPI_DBG=0 timeout 40 compute-sanitizer --tool synccheck $B/host sm90 --inputs bf16 --b n --rounds 1 --reps 1 --check-rows 1 --schedules wgmma 256 > $O/synccheck.txt 2>&1
echo "synccheck rc $?" >> $O/log.txt
RGK_EPI_DBG=0 timeout 40 compute-sanitizer --tool memcheck $B/host sm90 --inputs bf16 --b n --rounds 1 --reps 1 --check-rows 1 --schedules wgmma 256 > $O/memcheck.txt 2>&1
echo "memcheck rc $?" >> $O/log.txt
cd $OUT && tar cJf s17_call1.tar.xz w && rm -rf w
tar xJOf s17_call1.tar.xz w/log.txt
for f in synccheck memcheck; do tar xJOf s17_call1.tar.xz w/$f.txt | grep -v "^grid" | head -30; done
tar xJOf s17_call1.tar.xz w/d0_256.err | head
