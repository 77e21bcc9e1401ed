#!/usr/bin/env bash
# Session 6, device call 4 (nvidia-h200): two diagnostics on the merged main's bundle. (1) Is
# the default sm_90a schedule slower at 8192 than in session 5, or was it the order in run3?
# `w0_p` alone in three processes, then `skl` before `w0_p` in three. (2) 333x555x777 in
# three processes (run3: 50.1 µs against session 5's 38.6).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
W=/tmp/w4; mkdir -p $W/tc $W/m333
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 500 > $W/clock.csv & CL=$!
for i in 1 2 3; do
  timeout 45 $H sm90 --reps 30 --schedules wgmma_w0_p 8192 > $W/tc/alone_$i.json 2> $W/tc/alone_$i.err; echo "alone $i rc $?"
  grep -E "Bf16|Fp16" $W/tc/alone_$i.err
done
for i in 1 2 3; do
  timeout 60 $H sm90 --reps 30 --schedules wgmma_w0_p_skl,wgmma_w0_p 8192 > $W/tc/reversed_$i.json 2> $W/tc/reversed_$i.err; echo "reversed $i rc $?"
  grep -E "Bf16|Fp16" $W/tc/reversed_$i.err
done
for i in 1 2 3; do
  timeout 30 $H matmul --m 333 --n 555 --k 777 --reps 50 --json > $W/m333/run_$i.json 2> $W/m333/run_$i.err; echo "333 $i rc $?"
  grep -o '"median_ms": [0-9.e-]*\|"percent_of_cublas": [0-9.]*\|"kernel": "[a-z0-9_]*"\|"route": "[^"]*"' $W/m333/run_$i.json | tr '\n' ' '; echo
done
kill $CL
bash scripts/clock-summary.sh $W/clock.csv
tar czf "$OUT0/s6run4.tar.gz" -C $W .
