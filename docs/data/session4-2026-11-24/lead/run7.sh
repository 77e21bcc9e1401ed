#!/usr/bin/env bash
# Device call 7 (session 4, nvidia-h200-x2): issue 22's multi-process mode on 2 H200s (V = 40000:
# one GPU, --gpus 2, 2 ranks; byte-identical; a killed rank), the 2-GPU tests (multi, dist, paths
# with 2 GPUs), the GPU predecessor search test.
set -u
OUT0=${OUT:-/tmp/out}
tar xJf .device-c/bundle.tar.xz || exit 1
echo "commit $(cat .device/bundle/COMMIT)"; date -u
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv
W=/tmp/w7; mkdir -p $W/dist $W/tests
( OUT=$W/dist APSP_TMP=/tmp/scale timeout 300 scripts/gpu-run.sh dist 40000 ) > $W/dist.log 2>&1
grep -v "^+ " $W/dist.log | tail -8
rm -rf /tmp/scale
for t in gpu_apsp_dist gpu_apsp_multi gpu_float_pred; do
  echo "== $t"; ( export NCCL_NVLS_ENABLE=0; timeout 150 .device/bundle/tests/$t --test-threads=1 ) > $W/tests/$t.log 2>&1; echo "rc $?"
  grep -E "test result|FAILED|panicked|SKIPPED" $W/tests/$t.log | head -8
done
tar czf "$OUT0/run7.tar.gz" -C $W .
