#!/usr/bin/env bash
# Device call 12 (session 5, nvidia-h200): measurements of the merged main: the SGEMM shape
# suite (#20), the Hopper GEMMs' defaults against cuBLAS of the same precision (#21), the float
# min-plus kernels against their ceilings at V = 30000 (#24).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
W=/tmp/w12; mkdir -p $W/shapes $W/tc $W/float
( OUT=$W/shapes timeout 240 scripts/gpu-run.sh shapes ) > $W/shapes.log 2>&1
echo "shapes rc $?"; grep -E "geometric mean|SM clock" $W/shapes/sgemm_shapes.txt | cut -c1-400
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 500 > $W/clock.csv & CL=$!
timeout 120 $H sm90 --reps 20 --schedules wgmma_w0_p 4096 8192 > $W/tc/sm90.json 2> $W/tc/sm90.err; echo "sm90 rc $?"
for n in 4096 8192; do
  for t in "" --trans-b; do
    timeout 60 $H matmul $n --precision tf32 --reps 20 --json --verify sample $t --kernel sgemm > $W/tc/tf32${t}_$n.json 2>> $W/tc/tc.err; echo "tf32 $n $t rc $?"
  done
done
timeout 60 $H matmul 8192 --precision 3xtf32 --reps 10 --json --verify sample --kernel sgemm > $W/tc/3xtf32_8192.json 2>> $W/tc/tc.err; echo "3xtf32 rc $?"
for w in f32 f64; do
  timeout 90 $H apsp-float 30000 --weight $w --variants default --reps 3 --json > $W/float/full_$w.json 2> $W/float/full_$w.err; echo "float $w rc $?"
done
kill $CL
tar czf "$OUT0/run12.tar.gz" -C $W .
