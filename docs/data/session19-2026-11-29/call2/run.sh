#!/usr/bin/env bash
# Session 19, call 2: the pull kernels with the next ticket taken before the item's stores
# (relaxed atomic, its latency under the stores and the publication): every small-graph schedule
# at V = 1000 ... 5000 (scripts/gpu-small.sh: 10 solves each, plain and held), the schedules'
# GPU tests, every schedule identical to the launches at six V and two B, compute-sanitizer on
# the pull kernels; ncu of fw_pull_b64 at V = 2000 and 5000 again (the source page as CSV).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
CHECK=1 SANITIZE=1 TESTS=$B/tests bash scripts/gpu-small.sh $B/host $O/small 1000 1500 2000 2500 3000 4000 5000 > $O/small.log 2>&1
echo "gpu-small rc $?" >> $O/log.txt
for v in 2000 5000; do
  $B/host apsp-gen $v $((v * 40)) --seed 1 -o /tmp/s$v.in > /dev/null
  s=$(date +%s)
  timeout 150 ncu --set full --import-source no --clock-control none -k 'regex:fw_pull_b64$' -c 1 -o $O/pull64_$v \
    $B/host apsp-small /tmp/s$v.in --schedule pull64 --reps 1 --json > $O/ncu_pull64_$v.out 2>&1
  echo "ncu pull64 $v rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
  ncu --import $O/pull64_$v.ncu-rep --page source --csv --print-source sass > $O/pull64_${v}_sass.csv 2>&1
  ncu --import $O/pull64_$v.ncu-rep --page details > $O/pull64_${v}_details.txt 2>&1
done
cd $O && tar cJf reps.tar.xz *.ncu-rep && rm -f *.ncu-rep && cd $OUT
tar cJf s19_call2.tar.xz w && rm -rf w
tar xJOf s19_call2.tar.xz w/log.txt
tar xJOf s19_call2.tar.xz w/small.log | grep -v "^+" | tail -40
