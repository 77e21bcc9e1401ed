#!/bin/bash
# Final GPU check of merged main (issues 18, 19, 22 part 1, 23 part 2): run from the repository
# root on the GPU machine with the bundle unpacked into .device/bundle. Results under $OUT.
set -u
R=$OUT; export OUT=/tmp/o; mkdir -p $OUT /tmp/j
B=.device/bundle; H=$PWD/$B/host
(nvidia-smi; date -u; cat $B/COMMIT) > $OUT/machine.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 500 > $OUT/smclock.csv & S=$!
# 1. every GPU test
(time scripts/gpu-run.sh check) > $OUT/check.log 2>&1; tail -1 $OUT/tests.log
# 2. first-command wall time, JIT cache disabled (cold) and warm, 5 runs each, alternated
$H apsp-gen 100 1000 -o /tmp/j/g.in -q
echo "command,cache,run,wall_s,rc" > $OUT/jit.csv
for i in 1 2 3 4 5; do for c in cold warm; do for cmd in apsp matmul; do
  if [ $c = cold ]; then E="CUDA_CACHE_DISABLE=1"; else E="CUDA_CACHE_PATH=/tmp/jc"; fi
  if [ $cmd = apsp ]; then A="apsp /tmp/j/g.in -o /tmp/j/g.out"; else A="matmul 1024"; fi
  s=$(date +%s.%N); env $E $H $A > /tmp/j/out.txt 2>&1; rc=$?; e=$(date +%s.%N)
  echo "$cmd,$c,$i,$(python3 -c "print(round($e-$s,3))"),$rc" >> $OUT/jit.csv
done; done; done
cat $OUT/jit.csv
# 3. SGEMM at 4096 and 8192 beside cuBLAS
for n in 4096 8192; do $H matmul $n --reps 30 > $OUT/matmul_$n.txt 2>&1; tail -2 $OUT/matmul_$n.txt; done
# 4. APSP V = 10000, 30000 (B = 64)
BLOCKS=64 scripts/gpu-run.sh apsp 10000 30000 > $OUT/apsp.log 2>&1; mv $OUT/clock.csv $OUT/apsp-clock.csv
python3 -c "
import json,glob
for f in sorted(glob.glob('$OUT/apsp_*.json')):
  d=json.load(open(f))['results']; print(f.split('/')[-1], d['split']['compute_s'], d.get('percent_of_peak'))"
# 5. --stats at V = 60000, no distance file
scripts/gpu-run.sh stats 60000 > $OUT/stats.log 2>&1; tail -3 $OUT/stats.log
# 6. compute-sanitizer on the APSP kernels (with --stats), bounded
timeout 200 scripts/gpu-run.sh sanitize apsp > $OUT/sanitize.log 2>&1; echo "sanitize rc=$?"
grep -c "^+ " $OUT/sanitize.log; grep -E "FAILED|ERROR SUMMARY: [1-9]" $OUT/sanitize.log | head -5
kill $S; tar czf $R/final1.tgz -C $OUT .
