#!/usr/bin/env bash
# Device call 9 (session 4, nvidia-h200): the measurements of the merged main: --paths against
# distance-only at V = 30000 (every variant, 2 repetitions), the Python package (fresh venv, GPU
# tests, quick benchmarks with the GPU predecessor search), TF32/3xTF32 on wgmma, one small graph
# under every schedule, the out-of-core curve's 2 and 12 GiB points.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
echo "commit $(cat .device/bundle/COMMIT)"; date -u
W=/tmp/w9; mkdir -p $W/paths $W/python $W/tf32 $W/small $W/ooc
( OUT=$W/paths APSP_TMP=/tmp/pp timeout 200 scripts/gpu-run.sh paths-variants 30000 2 ) > $W/paths.log 2>&1; echo "paths rc $?"; tail -12 $W/paths.log; rm -rf /tmp/pp
tar czf "$OUT0/run9.tar.gz" -C $W .
( OUT=$W/python WHEEL_DIR=.whl timeout 150 scripts/gpu-run.sh python quick ) > $W/python.log 2>&1; echo "python rc $?"; grep -E "passed|failed" $W/python.log | tail -2; cat $W/python/python_bench.md 2>/dev/null | head -6
tar czf "$OUT0/run9.tar.gz" -C $W .
( OUT=$W/tf32 timeout 100 scripts/gpu-run.sh tf32 4096 8192 ) > $W/tf32.log 2>&1; echo "tf32 rc $?"; tail -12 $W/tf32.log
( OUT=$W/small timeout 60 scripts/gpu-run.sh small 1000 2000 ) > $W/small.log 2>&1; echo "small rc $?"; grep "^V=" $W/small.log | head
tar czf "$OUT0/run9.tar.gz" -C $W .
( OUT=$W/ooc APSP_TMP=/tmp/scale timeout 200 scripts/gpu-run.sh ooc 60000 2GiB 12GiB ) > $W/ooc.log 2>&1; echo "ooc rc $?"; grep -v "^+ " $W/ooc.log | tail -6
tar czf "$OUT0/run9.tar.gz" -C $W .
