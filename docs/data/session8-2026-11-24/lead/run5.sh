#!/usr/bin/env bash
# Session 8, lead device call 5 (nvidia-h200): the final main (after the mends that follow the
# measured bundle a24e676, the random_padded mend and d5d05c9, which restores gpu_skinny's offset NaNs)
# — gpu_skinny, which failed in call 4 (run4) because 62a33c6 had dropped them.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle5.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
export HOST_BIN=$PWD/$H REQUIRE_GPU=1
W=/tmp/w5; mkdir -p $W
for t in gpu_skinny:60; do
  n=${t%%:*}; l=${t##*:}
  timeout $l $B/tests/$n --test-threads 1 > $W/test_$n.log 2>&1; echo "$n rc $?"
  grep -E "FAILED|test result" $W/test_$n.log
done
tar czf "$OUT0/s8run5.tar.gz" -C $W .
