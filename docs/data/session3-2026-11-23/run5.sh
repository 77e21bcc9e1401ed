#!/usr/bin/env bash
# Device call 5: issue 22 item 1 at V = 100000 on one H200 (compute vs apsp-peak, Dijkstra check
# from 64 sources, file to file, peak RSS) beside the disk's write speed; compute-sanitizer on
# the sm_90a kernels.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
H=.device/bundle/host
echo "commit $(cat .device/bundle/COMMIT)"; date -u; df -h /tmp | tail -1
W=/tmp/w5; mkdir -p $W; T=/tmp/big; mkdir -p $T
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 500 > $W/clock_100k.csv & smi=$!
$H apsp-gen 100000 4000000 --seed 1 -o $T/g.in
/usr/bin/time -v $H apsp $T/g.in -o $T/g.out --verify --json > $W/apsp_100000.json 2> $W/apsp_100000.time
kill $smi
python3 - $W/apsp_100000.json <<'PY'
import json,sys
r=json.load(open(sys.argv[1]))["results"]
print({k: r[k] for k in r if not isinstance(r[k], (list,))})
PY
grep -E "Maximum resident|Elapsed" $W/apsp_100000.time
ls -la $T/g.out; rm -f $T/g.out
dd if=/dev/zero of=$T/dd bs=64M count=256 oflag=direct 2>&1 | tail -1; rm -f $T/dd
( OUT=$W/sanitize timeout 100 scripts/gpu-run.sh sanitize sm90 ) > $W/sanitize_sm90.log 2>&1; grep -E "ERROR SUMMARY|FAILED" $W/sanitize_sm90.log | sort | uniq -c
tar czf "$OUT0/run5.tar.gz" -C $W .
