#!/bin/bash
# A/B of the Floyd–Warshall kernels before (7c28511, 32-bit offsets) and after (84009d7, 64-bit
# block origins) issue 22's 64-bit change: compute time per block factor, alternated.
set -u
R=$OUT; O=/tmp/ab; mkdir -p $O /tmp/g
NEW=.device/bundle/host; OLD=.device-c/host-prej
(date -u; cat .device/bundle/COMMIT; nvidia-smi --query-gpu=name,driver_version --format=csv) > $O/machine.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 500 > $O/smclock.csv & S=$!
for v in 10000 30000; do $NEW apsp-gen $v $((v*40)) --seed 1 -o /tmp/g/g$v.in -q; done
echo "binary,vertices,block,round,compute_s" > $O/ab.csv
for round in 1 2; do for v in 10000 30000; do for b in 16 32 64; do for bin in old new; do
  if [ $bin = old ]; then H=$OLD; else H=$NEW; fi
  $H apsp /tmp/g/g$v.in -o /tmp/g/out --block $b --no-peak --json > $O/r.json 2>/dev/null
  c=$(python3 -c "import json;print(json.load(open('$O/r.json'))['results']['split']['compute_s'])")
  echo "$bin,$v,$b,$round,$c" | tee -a $O/ab.csv
done; done; done; done
kill $S; tar czf $R/ab.tgz -C $O .
