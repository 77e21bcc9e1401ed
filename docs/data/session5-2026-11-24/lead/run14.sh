#!/usr/bin/env bash
# Device call 14 (session 5, nvidia-h200): the Python wheel of the merged main, installed into a
# fresh virtual environment, then its GPU test suite and the quick benchmarks.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
echo "bundle $(cat .device/bundle/COMMIT)"; ls .whl; date -u
W=/tmp/w14; mkdir -p $W
( OUT=$W timeout 400 scripts/gpu-run.sh python quick ) > $W/python.log 2>&1
echo "python rc $?"; grep -E "passed|failed|error" $W/python.log | tail -5
tar czf "$OUT0/run14.tar.gz" -C $W .
