#!/usr/bin/env bash
# Session 15, call 2: ncu of the one-block wgmma kernel and the pair kernel (BF16, B row-major,
# 4096^3, the checking launch of each), and of the f64 min-plus phase-3 kernel at V = 12000.
set -u
O=$OUT
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $O/gpu.txt
which ncu > $O/ncu_path.txt 2>&1
timeout 200 ncu --set full --clock-control none -k 'regex:wgmma_bf16_bn_128x256x64_s4(c2)?$' -c 2 -o $O/sm90 \
  $B/host sm90 --inputs bf16 --b n --rounds 1 --reps 2 --check-rows 1 --schedules wgmma,wgmma_c2 4096 > $O/sm90_run.txt 2>&1
echo "sm90 ncu rc $?" >> $O/log.txt
ncu --import $O/sm90.ncu-rep --page details > $O/sm90_details.txt 2>&1
timeout 200 ncu --set full --clock-control none -k 'regex:fwf64w_phase3_b64' -s 2 -c 1 -o $O/f64 \
  $B/host apsp-float 12000 --weight f64 --variants default --rounds 6 --reps 1 > $O/f64_run.txt 2>&1
echo "f64 ncu rc $?" >> $O/log.txt
ncu --import $O/f64.ncu-rep --page details > $O/f64_details.txt 2>&1
cd $O && tar cJf reps.tar.xz sm90.ncu-rep f64.ncu-rep && rm -f sm90.ncu-rep f64.ncu-rep
cat $O/log.txt; grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|Stall" $O/sm90_details.txt | head -60
