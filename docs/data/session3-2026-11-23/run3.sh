#!/usr/bin/env bash
# Device call 3: issue 20 (the sgemm-shapes suite, the skinny/deep/thin shapes) and issue 21
# (tensor cores: mma.sync per precision and its ladder, the sm_90a wgmma kernel). Every file a
# mode writes is packed into $OUT/run3.tar.gz (the device returns a limited number of files).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
echo "commit $(cat .device/bundle/COMMIT)"; date -u
W=/tmp/w3; mkdir -p $W/shapes $W/tc $W/sm90 $W/shapesp
( OUT=$W/shapes timeout 300 scripts/gpu-run.sh shapes ) > $W/shapes.log 2>&1; tail -60 $W/shapes.log
( OUT=$W/tc timeout 150 scripts/gpu-run.sh tc 4096 8192 ) > $W/tc.log 2>&1; grep -v "^+" $W/tc.log | tail -30
( OUT=$W/sm90 timeout 90 scripts/gpu-run.sh sm90 ) > $W/sm90.log 2>&1; tail -15 $W/sm90.log
( OUT=$W/shapesp timeout 120 scripts/gpu-run.sh shapes-p ) > $W/shapesp.log 2>&1; tail -25 $W/shapesp.log
tar czf "$OUT0/run3.tar.gz" -C $W .
