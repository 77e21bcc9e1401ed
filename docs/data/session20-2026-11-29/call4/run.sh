#!/usr/bin/env bash
# Session 20, call 4: the committed tree (TcOrder::Interleaved, the library's large 16-bit
# kernel now `_w64i_s4`): `_w64l_s4` and `_w64i_s4` against cuBLAS (three processes per size),
# the library's own choice (`host matmul N --precision bf16|fp16`, no --kernel) at 4096 and 8192,
# the CUTLASS probe, the tensor-core GPU tests, compute-sanitizer on `_w64i_s4` (BF16 and FP16).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
export CUBLAS_LIBRARY=$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)
export LD_LIBRARY_PATH=$(dirname $CUBLAS_LIBRARY):${LD_LIBRARY_PATH:-}
g() { # name timeout cmd...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.out 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 50 > $O/clock.csv 2>/dev/null &
smi=$!
for p in 1 2 3; do
  for n in 4096 8192; do
    g bf16_${n}_p$p 120 $B/host matmul $n --precision bf16 --kernel tc_bf16_rr_w64l_s4,tc_bf16_rr_w64i_s4 --reps 20 --verify sample --json
  done
done
for n in 4096 8192; do
  for p in bf16 fp16; do
    g lib_${p}_$n 120 $B/host matmul $n --precision $p --reps 20 --verify sample --json
  done
done
g probe 120 .device/mma/probe 4096 8192
kill $smi
g tests_tc 300 $B/tests/gpu_tc --test-threads 4
for tool in memcheck racecheck; do
  for shape in "--m 256 --n 512 --k 256" "--m 300 --n 520 --k 200" "--m 17 --n 40 --k 24"; do
    for p in bf16 fp16; do
      s=$(date +%s)
      timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $B/host matmul $shape --precision $p --kernel tc_${p}_rr_w64i_s4 --reps 1 --no-cublas --json > $O/$tool.$p.$(echo $shape | tr -d ' -').json 2>> $O/$tool.log
      echo "$tool $p $shape rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
    done
  done
done
tar -cJf $OUT/s20_call4.tar.xz -C $OUT w && rm -rf $O
