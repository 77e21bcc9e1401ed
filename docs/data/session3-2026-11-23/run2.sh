#!/usr/bin/env bash
# Device call 2: the two test binaries that failed in call 1, the Python package's GPU suite and
# benchmarks, then issue 23's measurements (small graphs, batch, paths).
set -u
export OUT=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle
echo "commit $(cat $B/COMMIT)"; date -u
export REQUIRE_GPU=1 APSP_TESTDATA=$B/testdata/apsp HOST_BIN=$B/host
for t in gpu_blas gpu_occupancy; do timeout 200 $B/tests/$t --test-threads=1 2>&1 | grep -E "^test |test result|panicked|check:" | head -20; done
timeout 300 scripts/gpu-run.sh python > "$OUT/python.log" 2>&1; echo "python rc=$?"; grep -E "passed|failed|error" "$OUT/python.log" | tail -5; cat "$OUT/python_bench.md" 2>/dev/null
mkdir -p "$OUT/small" "$OUT/paths" "$OUT/batch"
OUT=$OUT/small timeout 200 scripts/gpu-run.sh small 2>&1 | grep -v "^+" | tail -30
OUT=$OUT/batch timeout 150 scripts/gpu-run.sh batch 2>&1 | grep -v "^+" | tail -8
OUT=$OUT/paths timeout 150 scripts/gpu-run.sh paths 30000 2>&1 | grep -v "^+" | tail -12
