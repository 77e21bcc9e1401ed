#!/usr/bin/env bash
# Session 17, call 6: ncu of the TF32 split pass and the products after it, one launch each
# (no clock control, caches flushed between kernels: ncu's default): the time of each kernel and
# its DRAM bytes and throughput, TF32 with B row-major at 4096 and 8192 and 3xTF32 at 8192.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second
g() { local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.txt 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt; }
for n in 4096 8192; do
  g ncu_tf32_$n 120 ncu --clock-control none --metrics $M -k regex:wgmma --launch-count 4 $B/host sm90 --inputs tf32 --b n --rounds 1 --reps 1 --check-rows 1 --schedules wgmma $n
done
g ncu_3x_8192 120 ncu --clock-control none --metrics $M -k regex:wgmma --launch-count 6 $B/host matmul 8192 --precision 3xtf32 --reps 1 --verify none
cd $OUT && tar cJf s17_call6.tar.xz w && rm -rf w
tar xJOf s17_call6.tar.xz w/log.txt
for f in ncu_tf32_4096 ncu_tf32_8192 ncu_3x_8192; do echo "== $f"; tar xJOf s17_call6.tar.xz w/$f.txt | grep -E "wgmma|duration|dram__|cycles_elapsed" | head -40; done
