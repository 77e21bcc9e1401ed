#!/usr/bin/env bash
# Session 15, call 5: compute-sanitizer memcheck and racecheck of the pair kernels (host sm90
# --check: aligned, odd, padded, alpha/beta shapes, a pair per tile and one pair walking them)
# and of the f64 float kernels with 64-bit shared loads (V = 200 and 131, default shape).
set -u
O=$OUT
W=$O/w; mkdir -p $W
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
date -u > $W/date.txt; cat $B/COMMIT > $W/commit.txt
t0=$(date +%s); log() { echo "[$(($(date +%s) - t0)) s] $*" >> $W/log.txt; }
for tool in memcheck racecheck; do
  log "$tool c2"; timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $B/host sm90 --check --no-timing --schedules wgmma_c2 > $W/san_c2_$tool.txt 2>&1; log "rc $?"
  for v in 200 131; do
    log "$tool f64 $v"; timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $B/host apsp-float $v --weight f64 --variants default,r8c4_k32_a2_r128_lean32 --reps 1 > $W/san_f64_${v}_$tool.txt 2>&1; log "rc $?"
  done
done
cd $O && tar cJf s15_call5.tar.xz w && rm -rf w
tar xJOf s15_call5.tar.xz w/log.txt; for f in $(tar tJf s15_call5.tar.xz | grep san_); do echo "$f: $(tar xJOf s15_call5.tar.xz $f | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1)"; done
