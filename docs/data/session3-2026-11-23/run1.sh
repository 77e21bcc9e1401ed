#!/usr/bin/env bash
# Device call 1: every GPU test of the merged main, then the Python package's GPU suite.
set -u
export OUT=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
cat .device/bundle/COMMIT 2>/dev/null; date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
TEST_TIMEOUT=200 scripts/gpu-run.sh check > "$OUT/check.log" 2>&1
grep -E "^test .*FAILED|^FAILED|panicked|summary:" "$OUT/check.log" | head -60
grep -B2 -A25 "^failures:" "$OUT/check.log" | head -150
if [ -d .whl ]; then timeout 240 scripts/gpu-run.sh python quick > "$OUT/python.log" 2>&1; tail -30 "$OUT/python.log"; fi
