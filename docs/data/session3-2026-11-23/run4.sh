#!/usr/bin/env bash
# Device call 4: issue 23 (small graphs, paths: the JSON of every run), issue 22 (out of core
# at V = 60000 under 4 and 8 GiB against in core), and compute-sanitizer on the APSP kernels.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
echo "commit $(cat .device/bundle/COMMIT)"; date -u
W=/tmp/w4; mkdir -p $W/small $W/paths $W/ooc $W/sanitize
( OUT=$W/small timeout 90 scripts/gpu-run.sh small ) > $W/small.log 2>&1; grep "^V=\|SM clock" $W/small.log
( OUT=$W/paths timeout 120 scripts/gpu-run.sh paths 30000 ) > $W/paths.log 2>&1; grep "^V=" $W/paths.log
( OUT=$W/ooc APSP_TMP=/tmp/scale timeout 270 scripts/gpu-run.sh ooc 60000 4GiB 8GiB ) > $W/ooc.log 2>&1; grep -v "^+ " $W/ooc.log | tail -12
tar czf "$OUT0/run4.tar.gz" -C $W .
( OUT=$W/sanitize timeout 90 scripts/gpu-run.sh sanitize apsp ) > $W/sanitize.log 2>&1; grep -E "ERROR SUMMARY|FAILED" $W/sanitize.log | sort | uniq -c | head
tar czf "$OUT0/run4.tar.gz" -C $W .
