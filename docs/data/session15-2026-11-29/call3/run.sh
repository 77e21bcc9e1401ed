#!/usr/bin/env bash
# Session 15, call 3: the f64 kernels with 64-bit shared loads and untied selects (tests, the
# default's full solve at V = 30000 against the f64 ceiling, short and sustained), and the ncu
# pages of call 2's reports (the wgmma one-block and pair kernels).
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
log tests; timeout 120 $B/tests/gpu_apsp_float --test-threads 1 > $W/tests.txt 2>&1; log "tests rc $?"; timeout 60 $B/tests/gpu_float_pred --test-threads 1 > $W/tests_pred.txt 2>&1; log "pred tests rc $?"
log full; timeout 200 $B/host apsp-float 30000 --weight f64 --variants default --reps 3 --sustained-ceiling > $W/full_f64.txt 2>&1; log "full rc $?"
log sweep; timeout 90 $B/host apsp-float 30000 --weight f64 --variants default,r8c4_k32_a2_r128_lean32,r8c4_k32_a2_r128 --rounds 48 --reps 3 > $W/sweep_f64.txt 2>&1; log "sweep rc $?"
kill $smi
mkdir -p $W/ncu && tar -C $W/ncu -xJf .device/s15/reps.tar.xz && \
  ncu --import $W/ncu/sm90.ncu-rep --page details > $W/sm90_details.txt 2>&1 && \
  ncu --import $W/ncu/sm90.ncu-rep --page raw --csv > $W/sm90_raw.csv 2>&1; rm -rf $W/ncu; log "ncu import rc $?"
cd $O && tar cJf s15_call3.tar.xz w && rm -rf w
tar xJOf s15_call3.tar.xz w/log.txt; tar xJOf s15_call3.tar.xz w/full_f64.txt | tail -8; tar xJOf s15_call3.tar.xz w/sweep_f64.txt | tail -6; tar xJOf s15_call3.tar.xz w/tests.txt | tail -4
