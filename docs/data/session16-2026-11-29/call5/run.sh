#!/usr/bin/env bash
# Session 16, call 5: the mma.sync kernels with the fast epilogue (tc/kernel.rs) against cuBLAS
# and their ceiling, the tc GPU tests, compute-sanitizer on both fast epilogues, ncu source
# counters of the new wgmma kernel (4096, BF16, B row-major).
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
for n in 4096 8192; do
  timeout 60 $B/host matmul $n --precision bf16 --kernel peak --reps 20 --verify none --json > $O/peak_bf16_$n.json 2>> $O/mma.err
  timeout 60 $B/host matmul $n --precision bf16 --kernel tc_bf16_rr_s4,tc_bf16_rr_w64l_s4,tc_bf16_rr_t256l_s4,tc_bf16_rr_l_k64_s3 --reps 20 --verify sample --json > $O/bf16_$n.json 2>> $O/mma.err
  echo "bf16 $n rc $?" >> $O/log.txt
  timeout 60 $B/host matmul $n --precision fp16 --kernel tc_fp16_rr_s4,tc_fp16_rr_w64l_s4 --reps 20 --verify sample --json > $O/fp16_$n.json 2>> $O/mma.err
done
kill $smi
timeout 120 $B/tests/gpu_tc --test-threads 1 > $O/tests_tc.txt 2>&1; echo "gpu_tc rc $?" >> $O/log.txt
CS=compute-sanitizer
for tool in memcheck racecheck; do
  timeout 60 $CS --tool $tool --error-exitcode 9 $B/host sm90 --check --no-timing --schedules wgmma > $O/san_sm90_$tool.txt 2>&1; echo "san sm90 $tool rc $?" >> $O/log.txt
  for shape in "--m 256 --n 512 --k 256" "--m 17 --n 40 --k 24"; do
    timeout 40 $CS --tool $tool --error-exitcode 9 $B/host matmul $shape --precision bf16 --kernel tc_bf16_rr_w64l_s4 --reps 1 --no-cublas >> $O/san_tc_$tool.txt 2>&1; echo "san tc $tool $shape rc $?" >> $O/log.txt
  done
done
timeout 120 ncu --set full --import-source yes --clock-control none -k 'regex:wgmma_bf16_bn_128x256x64_s4$' -c 1 -o $O/sm90new \
  $B/host sm90 --inputs bf16 --b n --rounds 1 --reps 1 --check-rows 1 --schedules wgmma 4096 > $O/ncu_run.txt 2>&1
echo "ncu rc $?" >> $O/log.txt
ncu --import $O/sm90new.ncu-rep --page source --csv --print-source sass > $O/src_new.csv 2> $O/src_new.err
ncu --import $O/sm90new.ncu-rep --page details > $O/details_new.txt 2>&1
cd $OUT && tar cJf s16_call5.tar.xz w && rm -rf w
tar xJOf s16_call5.tar.xz w/log.txt
tar xJOf s16_call5.tar.xz w/tests_tc.txt | grep "test result"
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" -r /dev/null; tar xJOf s16_call5.tar.xz w/san_sm90_memcheck.txt | tail -2
tar xJOf s16_call5.tar.xz w/mma.err | grep -iv "^+" | tail -30
