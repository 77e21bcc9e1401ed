#!/usr/bin/env bash
# Session 15, call 1: the pair kernels (clusters of 2, B multicast) with the grid from the
# resident-cluster count: edge checks, rounds against cuBLAS and the one-block default, GPU tests.
set -u
O=$OUT
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
t0=$(date +%s)
log() { echo "[$(($(date +%s) - t0)) s] $*" >> $O/log.txt; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
log check; timeout 60 $B/host sm90 --check --no-timing --schedules wgmma_c2 > $O/check.json 2> $O/check.err; log "check rc $?"
S16=wgmma,wgmma_c2 S32=wgmma OUT=$O/r bash scripts/gpu-sm90-rounds.sh; log "rounds rc $?"
log tests; timeout 150 $B/tests/gpu_sm90 --test-threads 1 > $O/tests.txt 2>&1; log "tests rc $?"
tail -5 $O/check.err; grep -h "grid\|%" $O/r/rounds_*.err | head -40; tail -5 $O/tests.txt; cat $O/log.txt
