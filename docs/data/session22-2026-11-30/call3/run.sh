#!/usr/bin/env bash
# Session 22, call 3: ncu of the item probes (the closure at 1 and 4 steps per barrier, 4 x 4
# cells, one block alone): stall samples per SASS instruction, to see what a closure step
# waits for.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
$B/host apsp-gen 128 5120 --seed 1 -o /tmp/p128.in > /dev/null
for k in apsp_probe_item_c4s1 apsp_probe_item_c4s4 apsp_probe_item_c8s2; do
  timeout 120 ncu --set full --import-source no --clock-control none -k "regex:$k\$" -c 1 -o $O/$k \
    $B/host apsp-small /tmp/p128.in --schedule launches --reps 1 --probe > $O/ncu_$k.out 2>&1
  echo "ncu $k rc $?" >> $O/log.txt
  ncu --import $O/$k.ncu-rep --page details > $O/${k}_details.txt 2>&1
  ncu --import $O/$k.ncu-rep --page source --csv --print-source sass > $O/${k}_sass.csv 2>&1
  rm -f $O/$k.ncu-rep
done
cd $OUT && tar cJf s22_call3.tar.xz w && rm -rf w
