#!/usr/bin/env bash
# Session 17, call 9: the TF32 split pass's scratch kept per GPU (SplitScratch) instead of
# allocated and freed per launch: the TF32/3xTF32 GPU tests, TF32 at 4096 through `host sm90`.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
g() { local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.json 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt; }
g tests_tf32 120 $B/tests/gpu_sm90_tf32 --test-threads 4
g tests_tc 170 $B/tests/gpu_tc --test-threads 4
g t4096 120 $B/host sm90 --inputs tf32 --b n,k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma 4096
g x3 60 $B/host matmul 4096 --precision 3xtf32 --reps 20 --verify sample --json
cd $OUT && tar cJf s17_call9.tar.xz w && rm -rf w
tar xJOf s17_call9.tar.xz w/log.txt
for t in tests_tf32 tests_tc; do tar xJOf s17_call9.tar.xz w/$t.json | grep "test result\|FAILED\|panicked" | head -5; done
tar xJOf s17_call9.tar.xz w/t4096.err | grep -v "^grid"
