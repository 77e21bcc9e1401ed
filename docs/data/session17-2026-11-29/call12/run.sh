#!/usr/bin/env bash
# Session 17, call 12: after the review (the TMA store's warp-group boxes, barrier and row
# computed in Out::store_tma, one host function for C's map): hang guards, the edge checks, the
# sm90 and TF32 GPU tests, BF16 4096 and TF32 4096 against cuBLAS once more.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
g() { local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.json 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt; }
g guard 20 $B/host sm90 --inputs bf16,tf32 --b n,k --rounds 1 --reps 2 --check-rows 4 --schedules wgmma 256 300x520x200
if grep -q "guard rc 0" $O/log.txt; then
  g check 70 $B/host sm90 --check --no-timing --schedules wgmma,wgmma_ds,wgmma_skl
  g r4096 90 $B/host sm90 --inputs bf16,fp16,tf32 --b n,k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma 4096
  g tests_sm90 170 $B/tests/gpu_sm90 --test-threads 4

fi
cd $OUT && tar cJf s17_call12.tar.xz w && rm -rf w
tar xJOf s17_call12.tar.xz w/log.txt
for t in tests_sm90 tests_tf32; do tar xJOf s17_call12.tar.xz w/$t.json | grep "test result"; done
tar xJOf s17_call12.tar.xz w/check.err | grep -c " ok$"
tar xJOf s17_call12.tar.xz w/r4096.err | grep -v "^grid"
