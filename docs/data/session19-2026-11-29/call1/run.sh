#!/usr/bin/env bash
# Session 19, call 1: the in-place TF32 kernel with 0 spills (producer keeps 56 registers):
# TF32 B row-major against the split pass and cuBLAS TF32 (three processes per size), the GPU
# tests, compute-sanitizer at an aligned and an odd shape; then ncu of the small-graph pull64
# kernel (V = 2000 and 5000) and of the f32 general phase 3 (V = 12000).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
g() { # name timeout args...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.json 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
g guard 20 $B/host sm90 --inputs tf32 --b n --rounds 1 --reps 2 --check-rows 4 --schedules wgmma,wgmma_split 256 300x520x200
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
if grep -q "guard rc 0" $O/log.txt; then
  for p in 1 2 3; do
    g t4096_p$p 120 $B/host sm90 --inputs tf32 --b n --rounds 9 --reps 10 --check-rows 2 --schedules wgmma,wgmma_split 4096
    g t8192_p$p 150 $B/host sm90 --inputs tf32 --b n --rounds 5 --reps 10 --check-rows 2 --schedules wgmma,wgmma_split 8192
  done
  g lib4096 60 $B/host matmul 4096 --precision tf32 --reps 20 --verify sample --json
fi
kill $smi
g tests_tf32 170 $B/tests/gpu_sm90_tf32 --test-threads 4
g tests_sm90 200 $B/tests/gpu_sm90 --test-threads 4
for tool in memcheck racecheck; do
  for shape in "--m 512 --n 512 --k 512" "--m 777 --n 1000 --k 520"; do
    s=$(date +%s)
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $B/host matmul $shape --precision tf32 --reps 1 --no-cublas --json > $O/$tool.$(echo $shape | tr -d ' -').json 2>> $O/$tool.log
    echo "$tool $shape rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
  done
done
# ncu: the small-graph pull64 kernel (one cooperative launch = the whole solve) and pull64x8.
for v in 2000 5000; do
  $B/host apsp-gen $v $((v * 40)) --seed 1 -o /tmp/s$v.in > /dev/null
done
for v in 1000 2000 5000; do
  [ -f /tmp/s$v.in ] || $B/host apsp-gen $v $((v * 40)) --seed 1 -o /tmp/s$v.in > /dev/null
  g small_$v 60 $B/host apsp-small /tmp/s$v.in --schedule pull64 --schedule flow64 --schedule pull64x8 --reps 10 --json
done
for v in 2000 5000; do
  s=$(date +%s)
  timeout 150 ncu --set full --import-source no --clock-control none -k 'regex:fw_pull_b64$' -c 1 -o $O/pull64_$v \
    $B/host apsp-small /tmp/s$v.in --schedule pull64 --reps 1 --json > $O/ncu_pull64_$v.out 2>&1
  echo "ncu pull64 $v rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
  ncu --import $O/pull64_$v.ncu-rep --page details > $O/pull64_${v}_details.txt 2>&1
  ncu --import $O/pull64_$v.ncu-rep --page source --csv --print-source sass > $O/pull64_${v}_sass.csv 2>&1
done
s=$(date +%s)
timeout 150 ncu --set full --clock-control none -k 'regex:fw_pull_b64c8$' -c 1 -o $O/pull64x8_5000 \
  $B/host apsp-small /tmp/s5000.in --schedule pull64x8 --reps 1 --json > $O/ncu_pull64x8.out 2>&1
echo "ncu pull64x8 5000 rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
ncu --import $O/pull64x8_5000.ncu-rep --page details > $O/pull64x8_5000_details.txt 2>&1
s=$(date +%s)
timeout 150 ncu --set full --clock-control none -k 'regex:fwf32tb_phase3_b64' -s 4 -c 1 -o $O/f32 \
  $B/host apsp-float 12000 --weight f32 --variants default --rounds 8 --reps 1 > $O/ncu_f32.out 2>&1
echo "ncu f32 rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
ncu --import $O/f32.ncu-rep --page details > $O/f32_details.txt 2>&1
cd $O && tar cJf reps.tar.xz *.ncu-rep && rm -f *.ncu-rep && cd $OUT
tar cJf s19_call1.tar.xz w && rm -rf w
tar xJOf s19_call1.tar.xz w/log.txt
for t in tests_tf32 tests_sm90; do tar xJOf s19_call1.tar.xz w/$t.json | grep "test result\|FAILED\|panicked" | head -5; done
for f in guard t4096_p1 t8192_p1 t4096_p2 t8192_p2 t4096_p3 t8192_p3; do tar xJOf s19_call1.tar.xz w/$f.err | grep -v "^grid" | grep "%"; done
tar xJOf s19_call1.tar.xz w/memcheck.log | grep -i "error summary" | head
tar xJOf s19_call1.tar.xz w/racecheck.log | grep -i "hazard\|RACECHECK SUMMARY" | head
tar xJOf s19_call1.tar.xz w/pull64_2000_details.txt | grep -E "Duration|Issue Slots Busy|Eligible Warps|No Eligible|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued" | head -30
