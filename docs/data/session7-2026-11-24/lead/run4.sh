#!/usr/bin/env bash
# Session 7, lead device call 4 (nvidia-h200): the committed SGEMM shape suite three more times
# on the merged main (three processes, `host bench sgemm-shapes`, median of 20 per problem and
# side), to put the geometric mean of call 2 beside repeats; SM clock every 200 ms.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
W=/tmp/w4; mkdir -p $W
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 200 > $W/clock.csv & CL=$!
for i in 1 2 3; do
  timeout 100 $H bench -o $W/suite_$i.jsonl sgemm-shapes > /dev/null 2> $W/suite_$i.txt; echo "suite $i rc $?"
  grep "geometric" $W/suite_$i.txt | cut -c1-400
done
kill $CL
bash scripts/clock-summary.sh $W/clock.csv
tar czf "$OUT0/s7run4.tar.gz" -C $W .
