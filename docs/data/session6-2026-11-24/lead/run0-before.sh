#!/usr/bin/env bash
# Device call for nvidia-h200-x2 (session 5): issue 22's multi-process mode on 2 H200s (V = 40000:
# one GPU, --gpus 2, 2 ranks; byte-identical; a killed rank), the 2-GPU tests (multi, dist, the
# split with paths), and --paths at V = 30000 on 1 and 2 GPUs (byte comparison, compute times).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv
export NCCL_NVLS_ENABLE=0 REQUIRE_GPU=1 APSP_TESTDATA=$B/testdata/apsp HOST_BIN=$H
W=/tmp/w7; mkdir -p $W/dist $W/tests $W/paths
nvidia-smi --query-gpu=timestamp,index,clocks.sm --format=csv -lms 500 > $W/clock.csv & CL=$!
( OUT=$W/dist APSP_TMP=/tmp/scale timeout 300 scripts/gpu-run.sh dist 40000 ) > $W/dist.log 2>&1
echo "dist rc $?"; grep -v "^+ " $W/dist.log | tail -8
rm -rf /tmp/scale
for t in gpu_apsp_multi_paths gpu_apsp_dist gpu_apsp_multi; do
  echo "== $t"; ( timeout 150 $B/tests/$t --test-threads=1 ) > $W/tests/$t.log 2>&1; echo "rc $?"
  grep -E "test result|FAILED|panicked|SKIPPED" $W/tests/$t.log | head -8
done
$H apsp-gen 30000 1200000 -o /tmp/g30k.in > /dev/null
for rep in 1 2; do for kind in successors predecessors; do for g in 1 2; do
  timeout 60 $H apsp /tmp/g30k.in -o /tmp/d$g.out --paths /tmp/p$g.paths --path-kind $kind --gpus $g --json > $W/paths/r${rep}_${kind}_g$g.json 2>&1
  echo "paths rep $rep $kind gpus $g rc $? $(grep -o '"compute_s": [0-9.]*' $W/paths/r${rep}_${kind}_g$g.json)"
done
cmp /tmp/d1.out /tmp/d2.out && cmp /tmp/p1.paths /tmp/p2.paths && echo "rep $rep $kind: 1 and 2 GPUs byte-identical"
done; done
timeout 60 $H apsp /tmp/g30k.in -o /tmp/d2.out --gpus 2 --json > $W/paths/plain_g2.json 2>&1
echo "distance-only gpus 2 $(grep -o '"compute_s": [0-9.]*' $W/paths/plain_g2.json | head -1)"
kill $CL
tar czf "$OUT0/run7.tar.gz" -C $W .
