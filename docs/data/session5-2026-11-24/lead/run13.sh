#!/usr/bin/env bash
# Device call 13 (session 5, nvidia-h200): the merged main on SGEMM problems outside the committed
# suite (the routes' 12 and the skinny classes' list), to check that the selection generalises.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
W=/tmp/w13; mkdir -p $W
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 500 > $W/clock.csv & CL=$!
for s in docs/data/session5-2026-11-24/shapes/outside.txt host/data/sgemm-shapes-skinny.txt; do
  n=$(basename $s .txt)
  timeout 200 $H bench -o $W/$n.jsonl sgemm-shapes --suite $s > /dev/null 2> $W/$n.txt; echo "$n rc $?"
  grep "geometric mean" $W/$n.txt | cut -c1-300
done
kill $CL
tar czf "$OUT0/run13.tar.gz" -C $W .
