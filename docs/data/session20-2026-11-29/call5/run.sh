#!/usr/bin/env bash
# Session 20, call 5: the BF16 ladder of the mma.sync path (every `tc_bf16_rr_*` kernel, rungs
# and variants, `--kernel ladder`) against cuBLAS BF16 at 1000, 4096 and 8192, with the mma.sync
# ceiling (`--kernel peak`), on the committed tree's bundle (call 4's).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
export CUBLAS_LIBRARY=$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)
g() { # name timeout cmd...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.out 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 50 > $O/clock.csv 2>/dev/null &
smi=$!
for n in 1000 4096 8192; do
  g peak_$n 60 $B/host matmul $n --precision bf16 --kernel peak --reps 20 --verify none --json
  g ladder_$n 240 $B/host matmul $n --precision bf16 --kernel ladder --reps 20 --verify sample --json
done
kill $smi
tar -cJf $OUT/s20_call5.tar.xz -C $OUT w && rm -rf $O
