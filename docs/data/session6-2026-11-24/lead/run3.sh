#!/usr/bin/env bash
# Session 6, device call 3 (nvidia-h200): measurements of the merged main. The SGEMM shape suite
# (#20, scripts/gpu-run.sh shapes), the problems outside it (the routes' list and the skinny
# classes' list), and the sm_90a default schedule against cuBLAS BF16/FP16 in three processes
# (#21: cuBLAS moved 7% between processes in the wgmma helper's calls).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
W=/tmp/w3; mkdir -p $W/shapes $W/outside $W/tc
( OUT=$W/shapes timeout 260 scripts/gpu-run.sh shapes ) > $W/shapes.log 2>&1
echo "shapes rc $?"; grep -E "geometric mean|SM clock" $W/shapes/sgemm_shapes.txt | cut -c1-600
tar czf "$OUT0/s6run3.tar.gz" -C $W .
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 500 > $W/clock.csv & CL=$!
timeout 120 $H bench -o $W/outside/routes.jsonl sgemm-shapes --suite docs/data/session6-2026-11-24/shapes/outside.txt > /dev/null 2> $W/outside/routes.txt
echo "outside routes rc $?"; grep "geometric" $W/outside/routes.txt | cut -c1-400
timeout 100 $H bench -o $W/outside/skinny.jsonl sgemm-shapes --suite host/data/sgemm-shapes-skinny.txt > /dev/null 2> $W/outside/skinny.txt
echo "outside skinny rc $?"; grep "geometric" $W/outside/skinny.txt | cut -c1-400
tar czf "$OUT0/s6run3.tar.gz" -C $W .
for i in 1 2 3; do
  timeout 70 $H sm90 --reps 50 --schedules wgmma_w0_p,wgmma_w0_p_skl 4096 8192 > $W/tc/sm90_$i.json 2> $W/tc/sm90_$i.err; echo "sm90 $i rc $?"
done
python3 - $W/tc/sm90_*.json <<'PY'
import json, sys
for f in sys.argv[1:]:
    try:
        d = json.load(open(f))
    except Exception as e:
        print(f, "unreadable", e); continue
    rs = d.get("results", d)
    if isinstance(rs, dict): rs = rs.get("rows") or rs.get("results") or [rs]
    for r in rs:
        if isinstance(r, dict):
            print(f.split('/')[-1], {k: r[k] for k in r if not isinstance(r[k], (dict, list))})
PY
kill $CL
bash scripts/clock-summary.sh $W/clock.csv
tar czf "$OUT0/s6run3.tar.gz" -C $W .
