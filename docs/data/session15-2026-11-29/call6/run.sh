#!/usr/bin/env bash
# Session 15, call 6: the f64 ceiling kernel beside session 14's CUDA C probe of the same update
# (addmin64.cu, nvcc -O3), then full f64 solves after full f32 general solves (a hot board).
set -u
O=$OUT
W=$O/w; mkdir -p $W
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
date -u > $W/date.txt; cat $B/COMMIT > $W/commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 250 > $W/clock.csv 2>/dev/null &
smi=$!
t0=$(date +%s); log() { echo "[$(($(date +%s) - t0)) s] $*" >> $W/log.txt; }
log probe; (cd .device/s15/probe && nvcc -O3 -arch=sm_90 -o addmin64 addmin64.cu && ./addmin64) > $W/probe64.txt 2>&1; log "rc $?"
log ceiling; $B/host apsp-float 2000 --weight f64 --variants default --reps 1 > $W/ceiling_f64.txt 2>&1; log "rc $?"
log full_f32; timeout 100 $B/host apsp-float 30000 --weight f32 --variants default --reps 3 --sustained-ceiling > $W/full_f32.txt 2>&1; log "rc $?"
log full_f64; timeout 150 $B/host apsp-float 30000 --weight f64 --variants default --reps 3 --sustained-ceiling > $W/full_f64.txt 2>&1; log "rc $?"
kill $smi
cd $O && tar cJf s15_call6.tar.xz w && rm -rf w
tar xJOf s15_call6.tar.xz w/log.txt; tar xJOf s15_call6.tar.xz w/probe64.txt | grep -E "^(cmp|round)"; tar xJOf s15_call6.tar.xz w/ceiling_f64.txt | head -2; tar xJOf s15_call6.tar.xz w/full_f32.txt | tail -3; tar xJOf s15_call6.tar.xz w/full_f64.txt | tail -4
