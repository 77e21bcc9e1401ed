set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/mma; R=/tmp/mma2
mkdir -p "$OUT0" $R
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
export CUBLAS_LIBRARY=${CUBLAS_LIBRARY:-$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt; cat $B/COMMIT >> $R/gpu.txt
body() {
  set -o pipefail
  NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  for k in tc_bf16_rr_w64_s4 tc_bf16_rr_s4; do
    echo "+ ncu $k"
    $NCU --clock-control none --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \
      -k "regex:^${k}\$" --launch-skip 1 --launch-count 1 $H matmul 4096 --precision bf16 --kernel $k --reps 1 --no-cublas --verify none > $R/ncu_$k.txt 2>&1 || echo "FAILED ncu $k"
  done
  echo "+ ncu metrics"
  $NCU --clock-control none --csv --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_ldsm.sum \
    -k "regex:^(tc_bf16_rr_w64_s4|tc_bf16_rr_s4|tc_mma_peak_bf16)\$" --launch-count 6 $H matmul 4096 --precision bf16 --kernel tc_bf16_rr_w64_s4,tc_bf16_rr_s4,peak --reps 1 --no-cublas --verify none > $R/ncu_metrics.csv 2>&1 || echo "FAILED ncu metrics"
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 200 > $R/clock.csv & smi=$!
  for t in "--trans-b:rc" "--trans-a:cr" "--trans-a --trans-b:cc"; do
    f=${t%:*}; l=${t#*:}
    $H matmul 4096 --precision fp16 $f --kernel tc_fp16_${l}_s4,tc_fp16_${l}_w64_s4 --reps 20 --verify sample --json > $R/fp16_layout_$l.json || echo "FAILED fp16 $l"
  done
  for n in 1000 2048; do for p in bf16 fp16; do
    $H matmul $n --precision $p --kernel tc_${p}_rr_s4,tc_${p}_rr_w64_s4 --reps 20 --json > $R/size_${p}_$n.json || echo "FAILED size $p $n"
  done; done
  kill $smi
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    for k in tc_bf16_rr_w64_s4 tc_bf16_rr_t128w64_s4 tc_bf16_rr_t256_s4 tc_bf16_rr_w64_s4_np tc_fp16_rr_w64_s4; do
      p=${k#tc_}; p=${p%%_*}
      for s in "--m 256 --n 256 --k 256" "--m 17 --n 40 --k 24"; do
        echo "+ $tool $k $s"; $CS --tool $tool --error-exitcode 9 $H matmul $s --precision $p --kernel $k --reps 1 --no-cublas 2>&1 | tail -3 || echo "FAILED $tool $k $s"
      done
    done
    echo "+ $tool tc_bf16_cc_w64_s4 300x520x999"; $CS --tool $tool --error-exitcode 9 $H matmul --m 300 --n 520 --k 999 --trans-a --trans-b --precision bf16 --kernel tc_bf16_cc_w64_s4 --reps 1 --no-cublas 2>&1 | tail -3
  done
}
export -f body 2>/dev/null
export H R
timeout 178 bash -c "$(declare -f body); body" > $R/run2.log 2>&1
echo "rc $? after ${SECONDS}s" >> $R/run2.log
tar czf "$OUT0/mma2.tar.gz" -C /tmp mma2
tail -75 $R/run2.log
