#!/usr/bin/env bash
# Session 7, lead device call 2 (nvidia-h200): the SGEMM shape suite and the lists outside it
# (issue 20, scripts/gpu-run.sh shapes-s7: skinny tests, candidates, suite, three outside lists,
# sanitizer), the float min-plus kernels at V = 30000 (issue 24, FULL_TOP=2 scripts/gpu-run.sh
# float 30000 48 3).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle
echo "commit $(cat $B/COMMIT)"; date -u
W=/tmp/w2; mkdir -p $W/shapes $W/float
OUT=$W/shapes timeout 200 scripts/gpu-run.sh shapes-s7 > $W/shapes.log 2>&1; echo "shapes-s7 rc $?"
grep -E "geometric|SM clock|FAILED|SUMMARY" $W/shapes.log | cut -c1-300
tar czf "$OUT0/s7run2.tar.gz" -C $W .
FULL_TOP=2 OUT=$W/float timeout 200 scripts/gpu-run.sh float 30000 48 3 > $W/float.log 2>&1; echo "float rc $?"
tail -30 $W/float.log
tar czf "$OUT0/s7run2.tar.gz" -C $W .
