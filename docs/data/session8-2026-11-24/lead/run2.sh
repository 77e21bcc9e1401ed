#!/usr/bin/env bash
# Session 8, lead device call 2 (nvidia-h200): GPU tests of the tensor-core and float areas this
# session changed (gpu_apsp with HOST_BIN, gpu_tc, gpu_sm90, gpu_sm90_tf32, gpu_apsp_float), issue 21's Hopper targets
# interleaved with cuBLAS (scripts/gpu-run.sh sm90-rounds), TF32 with B row-major in place vs split
# (scripts/gpu-run.sh sm90-tf32, PASSES=1), the mma.sync kernels (MMA_LADDER=0 MMA_NCU=0 MMA_SASS=0
# MMA_PEAK=bf16 scripts/gpu-run.sh mma 4096 8192), and the float defaults at V = 30000
# (VARIANTS_F32=default,t8x8_k64_lean VARIANTS_F64=default FULL_TOP=1 scripts/gpu-run.sh float 30000 48 3).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
W=/tmp/w2; mkdir -p $W/rounds $W/tf32 $W/float
export HOST_BIN=$PWD/$H  # tests that start the binary run the bundle's
for t in gpu_apsp:60 gpu_tc:100 gpu_sm90:120 gpu_sm90_tf32:60 gpu_apsp_float:90; do
  n=${t%%:*}; l=${t##*:}
  [ -x $B/tests/$n ] || continue
  timeout $l $B/tests/$n --test-threads 1 > $W/test_$n.log 2>&1; echo "$n rc $?"
  grep -E "FAILED|test result" $W/test_$n.log
done
tar czf "$OUT0/s8run2.tar.gz" -C $W .
OUT=$W/rounds timeout 170 scripts/gpu-run.sh sm90-rounds > $W/rounds.log 2>&1; echo "sm90-rounds rc $?"
cat $W/rounds/rounds.log 2>/dev/null | tail -20
tar czf "$OUT0/s8run2.tar.gz" -C $W .
PASSES=1 OUT=$W/tf32 timeout 90 scripts/gpu-run.sh sm90-tf32 > $W/tf32.log 2>&1; echo "sm90-tf32 rc $?"
tail -15 $W/tf32.log
tar czf "$OUT0/s8run2.tar.gz" -C $W .
MMA_LADDER=0 MMA_NCU=0 MMA_SASS=0 MMA_PEAK=bf16 OUT=$W timeout 120 scripts/gpu-run.sh mma 4096 8192 > $W/mma.log 2>&1; echo "mma rc $?"
tar xzf $W/mma.tar.gz -O 2>/dev/null | grep -a -E "w64l_s4|cuBLAS" | head -12
tar czf "$OUT0/s8run2.tar.gz" -C $W .
VARIANTS_F32=default,t8x8_k64_lean VARIANTS_F64=default FULL_TOP=1 OUT=$W/float timeout 120 scripts/gpu-run.sh float 30000 48 3 > $W/float.log 2>&1; echo "float rc $?"
tail -12 $W/float.log
tar czf "$OUT0/s8run2.tar.gz" -C $W .
