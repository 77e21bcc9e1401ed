#!/usr/bin/env bash
# Session 23, call 4: ncu of the item probes of the closure by quadrants (4 x 4 and 8 x 8 cells,
# one block alone) and, for comparison, the one at 4 steps per barrier: instructions executed
# per SASS line (stall samples are too few in one launch this short).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
$B/host apsp-gen 128 5120 --seed 1 -o /tmp/p128.in > /dev/null
for k in apsp_probe_item_c4q apsp_probe_item_c8q apsp_probe_item_c4s4; do
  timeout 120 ncu --set full --import-source no --clock-control none -k "regex:$k\$" -c 1 -o $O/$k \
    $B/host apsp-small /tmp/p128.in --schedule launches --reps 1 --probe > $O/ncu_$k.out 2>&1
  echo "ncu $k rc $?" >> $O/log.txt
  ncu --import $O/$k.ncu-rep --page details > $O/${k}_details.txt 2>&1
  ncu --import $O/$k.ncu-rep --page source --csv --print-source sass > $O/${k}_sass.csv 2>&1
  rm -f $O/$k.ncu-rep
done
cat $O/log.txt
cd $OUT && tar cJf s23_call4.tar.xz w && rm -rf w
