#!/usr/bin/env bash
# Session 24, call 4: the strip kernels again, two more processes (the bundle of call 3; its
# host predates the commit's default_schedule change, so the JSON's `default_schedule` names
# the old default): strips4c, strips4, pull64, pull64x8 and flow32 at V = 800 … 3000, 10 solves
# each, plain and held.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
for p in 1 2; do
  mkdir -p $O/p$p
  for v in 800 1000 1500 2000 2250 2500 2750 3000; do
    $B/host apsp-gen $v $((v * 40)) --seed 1 -o /tmp/s$v.in > /dev/null
    timeout 60 $B/host apsp-small /tmp/s$v.in --schedule flow32 --schedule pull64 --schedule pull64x8 --schedule strips4 --schedule strips4c --reps 10 --hold-us 3000 --json > $O/p$p/small_$v.json 2> $O/p$p/small_$v.err; echo "p$p V=$v rc $?" >> $O/log.txt
  done
done
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv >> $O/log.txt
python3 - $O <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + '/p*/small_*.json')):
    r = json.load(open(f))["results"]
    print(f.split('/')[-2], r["vertices"], ' '.join(f'{x["schedule"]}={x["percent_of_peak"]:.1f}/{x["held_percent_of_peak"]:.1f}({x["identical"]})' for x in r["runs"]))
PY
cat $O/log.txt | tail -3
cd $OUT && tar cJf s24_call4.tar.xz w && rm -rf w
