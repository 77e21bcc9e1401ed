#!/usr/bin/env bash
# Session 6, device call 1 (nvidia-h200-x2): issue 22's multi-process mode after it took the
# one-process round loop (look-ahead, NCCL warm-up): V = 40000 on 1 GPU, --gpus 2 and 2 ranks,
# twice; the killed-rank check; the 2-GPU tests; --paths at V = 30000 on 1 and 2 GPUs (bytes).
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv
export NCCL_NVLS_ENABLE=0 REQUIRE_GPU=1 APSP_TESTDATA=$B/testdata/apsp HOST_BIN=$H
W=/tmp/w1; mkdir -p $W/tests $W/paths
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 500 > $W/clock.csv & CL=$!
for rep in 1 2; do
  mkdir -p $W/dist$rep
  ( OUT=$W/dist$rep APSP_TMP=/tmp/scale timeout 200 scripts/gpu-run.sh dist 40000 ) > $W/dist$rep.log 2>&1
  echo "dist rep $rep rc $?"; grep -E "x one GPU|exit|output left" $W/dist$rep.log
  rm -rf /tmp/scale
done
for t in gpu_apsp_dist gpu_apsp_multi gpu_apsp_multi_paths; do
  echo "== $t"; ( timeout 120 $B/tests/$t --test-threads=1 ) > $W/tests/$t.log 2>&1; echo "rc $?"
  grep -E "test result|FAILED|panicked|SKIPPED" $W/tests/$t.log | head -8
done
$H apsp-gen 30000 1200000 -o /tmp/g30k.in > /dev/null
for g in 1 2; do
  timeout 60 $H apsp /tmp/g30k.in -o /tmp/d$g.out --paths /tmp/p$g.paths --gpus $g --json > $W/paths/successors_g$g.json 2>&1
  echo "paths gpus $g rc $? $(grep -o '"compute_s": [0-9.]*' $W/paths/successors_g$g.json | head -1)"
done
cmp /tmp/d1.out /tmp/d2.out && cmp /tmp/p1.paths /tmp/p2.paths && echo "paths: 1 and 2 GPUs byte-identical"
kill $CL
bash scripts/clock-summary.sh $W/clock.csv
tar czf "$OUT0/s6run1.tar.gz" -C $W .
