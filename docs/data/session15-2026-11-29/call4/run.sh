#!/usr/bin/env bash
# Session 15, call 4: the move-free float ceilings (f64 and f32) with the f64 kernels of call 3,
# full solves at V = 30000; the pair kernels with the slot release at CTA scope (edge checks,
# rounds against cuBLAS and the one-block default, the sm90 GPU tests).
set -u
O=$OUT
W=$O/w; mkdir -p $W
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
date -u > $W/date.txt; cat $B/COMMIT > $W/commit.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > $W/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 250 > $W/clock.csv 2>/dev/null &
smi=$!
t0=$(date +%s); log() { echo "[$(($(date +%s) - t0)) s] $*" >> $W/log.txt; }
log tests_float; timeout 120 $B/tests/gpu_apsp_float --test-threads 1 > $W/tests_float.txt 2>&1; log "rc $?"
log full_f64; timeout 150 $B/host apsp-float 30000 --weight f64 --variants default --reps 3 --sustained-ceiling > $W/full_f64.txt 2>&1; log "rc $?"
log full_f32; timeout 100 $B/host apsp-float 30000 --weight f32 --variants default,nonneg --reps 3 --sustained-ceiling > $W/full_f32.txt 2>&1; log "rc $?"
log check_c2; timeout 60 $B/host sm90 --check --no-timing --schedules wgmma_c2 > $W/check_c2.json 2> $W/check_c2.err; log "rc $?"
log rounds; S16=wgmma,wgmma_c2 S32=wgmma OUT=$W/r timeout 200 bash scripts/gpu-sm90-rounds.sh; log "rc $?"
log tests_sm90; timeout 150 $B/tests/gpu_sm90 --test-threads 1 > $W/tests_sm90.txt 2>&1; log "rc $?"
kill $smi
cd $O && tar cJf s15_call4.tar.xz w && rm -rf w
tar xJOf s15_call4.tar.xz w/log.txt; tar xJOf s15_call4.tar.xz w/full_f64.txt | grep -v "^\s*$" | tail -4; tar xJOf s15_call4.tar.xz w/full_f32.txt | tail -8
tar xJOf s15_call4.tar.xz w/check_c2.err | grep -c " ok"; tar xJOf s15_call4.tar.xz w/check_c2.err | grep -c FAILED
tar xJOf s15_call4.tar.xz w/r/rounds_4096.err w/r/rounds_8192.err | grep "%"; tar xJOf s15_call4.tar.xz w/tests_sm90.txt | tail -3; tar xJOf s15_call4.tar.xz w/tests_float.txt | tail -3
